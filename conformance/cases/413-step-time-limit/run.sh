#!/usr/bin/env bash
. "$CASE_LIB"
WAIT_LIMIT=150
a=$(submit -o step.out --time=10 "$CASE_DIR/job.sh"); wait_state "$a" RUNNING
while ! scontrol show step "$a.0" >/dev/null 2>&1; do sleep 0.2; done
scontrol show step "$a.0" | grep -o 'TimeLimit=[^ ]*'
wait_done "$a"
field "$a" JobState
cat step.out

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J stepjob "$CASE_DIR/job.sh"); wait_state "$a" RUNNING
while ! scontrol show step "$a.0" >/dev/null 2>&1; do sleep 0.2; done
scontrol show step "$a.0" | grep -E -o '(StepId|JobName|State|Partition|NodeList|Nodes|CPUs|Tasks|Name)=[^ ]*'

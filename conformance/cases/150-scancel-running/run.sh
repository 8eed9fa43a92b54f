#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -J sleeper -o s.out --wrap 'echo started; sleep 300'); wait_state "$id" RUNNING
# RUNNING comes before the script has printed anything: wait for its first line, or the cancel may beat it.
while ! grep -q started s.out 2>/dev/null; do sleep 0.2; done
scancel "$id"; echo "rc=$?"; wait_done "$id"
fields "$id" JobState Reason ExitCode; cat s.out

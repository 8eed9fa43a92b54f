#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -o sig.out "$CASE_DIR/job.sh"); wait_state "$id" RUNNING
while ! grep -q ready sig.out 2>/dev/null; do sleep 0.2; done
scancel -f -s USR1 "$id"; echo "rc=$?"; wait_done "$id"
cat sig.out; fields "$id" JobState ExitCode

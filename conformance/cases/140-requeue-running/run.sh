#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -o r.out --wrap 'echo start; sleep 300'); wait_state "$id" RUNNING
scontrol requeue "$id"; echo "rc=$?"
# Slurm shows BeginTime within a second or two; Spur never does (a known difference), so do not wait long for it.
WAIT_LIMIT=8 wait_reason "$id" BeginTime
fields "$id" JobState Reason Restarts

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -o r.out --wrap 'echo start; sleep 300'); wait_state "$id" RUNNING
scontrol requeue "$id"; echo "rc=$?"
wait_reason "$id" BeginTime
fields "$id" JobState Reason Restarts

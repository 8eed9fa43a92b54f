#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --begin=now+1hour --wrap true)
wait_reason "$id" BeginTime
squeue -h -j "$id" -o '%T %r'; fields "$id" JobState Reason

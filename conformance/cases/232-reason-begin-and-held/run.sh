#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J b232 --begin=now+1hour --wrap true); wait_reason "$a" BeginTime
b=$(submit -J h232 -H --wrap true)
squeue -j "$a,$b" -S i

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J big -n2 --wrap 'sleep 300'); wait_state "$a" RUNNING
b=$(submit -J waiting -n1 --wrap true); wait_reason "$b" Resources
c=$(submit -J third -n1 --wrap true); wait_reason "$c" Priority
squeue -j "$a,$b,$c"

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J busy -n1 --wrap 'sleep 300'); wait_state "$a" RUNNING
sinfo; sinfo -h -o '%T %C'
b=$(submit -J busy2 -n1 --wrap 'sleep 300'); wait_state "$b" RUNNING
sinfo -h -o '%T %C'

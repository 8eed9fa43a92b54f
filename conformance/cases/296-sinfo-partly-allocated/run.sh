#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J wide -N2 --exclusive --wrap 'sleep 300'); wait_state "$a" RUNNING
b=$(submit -J half -n1 --wrap 'sleep 300'); wait_state "$b" RUNNING
sinfo
sinfo -N -o '%N %T %C'
squeue -j "$a,$b" -o '%j %N'

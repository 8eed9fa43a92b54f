#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J wide -N2 --wrap 'sleep 300'); wait_state "$a" RUNNING
b=$(submit -J one -N1 --wrap 'sleep 300'); wait_state "$b" RUNNING
squeue -j "$a,$b"
squeue -j "$a,$b" -o '%j %D %N %C %R'
squeue -j "$a" -O 'JobID,NumNodes,NodeList,BatchHost'

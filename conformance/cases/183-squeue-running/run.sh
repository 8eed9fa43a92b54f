#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J run183 --time=10 --wrap 'sleep 300'); wait_state "$a" RUNNING
squeue -j "$a"; squeue -l -j "$a"; squeue -h -j "$a" -o '%t %T %N %B %C %D'

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -o r.out --wrap 'sleep 300'); wait_state "$id" RUNNING
scontrol requeuehold "$id"; echo "rc=$?"
wait_state "$id" PENDING; squeue -h -j "$id" -o '%T %r'; fields "$id" Restarts

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H -o h.out --wrap 'echo released')
squeue -h -j "$id" -o '%T %r'
scontrol release "$id"; echo "rc=$?"
wait_done "$id"; cat h.out; field "$id" JobState

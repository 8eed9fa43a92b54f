#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --begin=now+1hour --wrap true)
scontrol hold "$id"; echo "rc=$?"; squeue -h -j "$id" -o '%T %r'; fields "$id" Priority Reason
scontrol release "$id"; echo "rc=$?"; wait_reason "$id" BeginTime; squeue -h -j "$id" -o '%T %r'

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --begin=now+1hour --wrap true)
scontrol uhold "$id"; echo "rc=$?"; squeue -h -j "$id" -o '%T %r'

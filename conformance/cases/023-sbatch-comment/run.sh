#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --comment='a comment here' --wrap true)
scontrol show job "$id" | grep -o 'Comment=.*'
squeue -h -j "$id" -o '%k'

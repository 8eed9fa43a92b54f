#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --array=1,3,5-6 --wrap true)
squeue -h -r -j "$id" -o '%i' | sort; field "$id" ArrayTaskId

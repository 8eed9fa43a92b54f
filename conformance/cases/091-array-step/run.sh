#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --array=0-6:2 --wrap true)
squeue -h -r -j "$id" -o '%i' | sort; field "$id" ArrayTaskId

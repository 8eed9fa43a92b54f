#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --array=1-4%2 --wrap true)
fields "$id" ArrayTaskId ArrayTaskThrottle
squeue -h -j "$id" -o '%i %T'

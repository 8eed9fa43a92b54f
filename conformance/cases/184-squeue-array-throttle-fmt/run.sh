#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J thr --array=1-5%2 --wrap true)
squeue -j "$a"; squeue -h -j "$a" -o '%i %K'

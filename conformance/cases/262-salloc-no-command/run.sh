#!/usr/bin/env bash
. "$CASE_LIB"
salloc -n1 --no-shell; echo "rc=$?"
track $(squeue -h -n no-shell -o %i)

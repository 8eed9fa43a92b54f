#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --array=1-3 --wrap true); echo "$id"
squeue -h -j "$id" -o '%i %T' -r | sort

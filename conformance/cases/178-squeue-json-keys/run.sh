#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J js --wrap true)
squeue --json -j "$a" | jq -r '.jobs[0] | keys[]'

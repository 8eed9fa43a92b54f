#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J js --wrap true)
squeue --json | jq -r --argjson id "$a" '.jobs[] | select(.job_id == $id) | keys[]'

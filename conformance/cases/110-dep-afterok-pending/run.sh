#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H --wrap true)
b=$(submit --dependency=afterok:$a --wrap true)
wait_reason "$b" Dependency
squeue -h -j "$b" -o '%T %r %E'; fields "$b" JobState Reason Dependency

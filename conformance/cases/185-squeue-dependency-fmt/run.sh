#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H --wrap true); b=$(submit -J dep185 --dependency=afterok:$a --wrap true); wait_reason "$b" Dependency
squeue -j "$b"; squeue -h -j "$b" -o '%E'

#!/usr/bin/env bash
. "$CASE_LIB"
# Tasks started in one pass: the first gets the next free id, the last the array's; the environment says so.
arr=$(submit -J c601 --array=1-2 -o 'c601-%a.out' --time=1 \
    --wrap 'echo "offset=$((SLURM_JOB_ID - SLURM_ARRAY_JOB_ID)) array=$SLURM_ARRAY_JOB_ID task=$SLURM_ARRAY_TASK_ID"')
wait_done "$arr"
echo "array $arr"; cat c601-1.out c601-2.out
next=$(submit -H -J c601next -o /dev/null --wrap true)
echo "next: $((next - arr))"
scancel "$next"

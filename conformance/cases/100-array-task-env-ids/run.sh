#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --array=1-2 -o 'e-%a.out' --wrap 'echo "job=$SLURM_JOB_ID array=$SLURM_ARRAY_JOB_ID task=$SLURM_ARRAY_TASK_ID"'); wait_done "$id"
echo "array $id"; cat e-1.out e-2.out

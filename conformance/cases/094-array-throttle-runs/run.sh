#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --array=1-4%1 -o 'a-%a.out' --wrap 'echo $SLURM_ARRAY_TASK_ID'); wait_done "$id"
cat a-1.out a-2.out a-3.out a-4.out

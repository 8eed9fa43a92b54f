#!/usr/bin/env bash
. "$CASE_LIB"
out=$(sbatch --array=1-3 -o 'arr-%A_%a.out' --wrap 'echo "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT"'); echo "$out"
id=${out##* }; track "$id"; wait_done "$id"
for f in $(ls arr-*.out | sort); do echo "## $f"; cat "$f"; done

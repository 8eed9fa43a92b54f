#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --array=1-2 -o 'arr-%A_%a.out' --wrap 'echo task $SLURM_ARRAY_TASK_ID'); wait_done "$id"
for f in $(ls arr-*.out | sort); do echo "## $f"; cat "$f"; done

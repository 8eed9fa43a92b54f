#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --array=2-3 -o 'env-%a.out' --wrap env); wait_done "$id"
for f in env-2.out env-3.out; do echo "## $f"; grep -E '^SLURM_ARRAY|^SLURM_JOB_NAME' "$f" | sort; done

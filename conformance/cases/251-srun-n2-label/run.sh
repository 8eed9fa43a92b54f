#!/usr/bin/env bash
. "$CASE_LIB"
srun -n2 -l bash -c 'echo task $SLURM_PROCID' | sort; echo "rc=${PIPESTATUS[0]}"

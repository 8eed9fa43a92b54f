#!/usr/bin/env bash
. "$CASE_LIB"
srun -n2 bash -c 'exit $((SLURM_PROCID+5))'; echo "rc=$?"

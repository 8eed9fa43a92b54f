#!/usr/bin/env bash
. "$CASE_LIB"
salloc -n1 srun env > env.out 2> err.txt; echo "rc=$?"
slurm_env env.out

#!/usr/bin/env bash
. "$CASE_LIB"
srun -n1 -J srunenv env > env.out; echo "rc=$?"
slurm_env env.out

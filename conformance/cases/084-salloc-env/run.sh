#!/usr/bin/env bash
. "$CASE_LIB"
salloc -n1 -J sallocenv env > env.out 2> err.txt; echo "rc=$?"
slurm_env env.out; cat err.txt

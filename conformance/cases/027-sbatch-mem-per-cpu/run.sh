#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --mem-per-cpu=200 --wrap 'echo mem=$SLURM_MEM_PER_CPU node=${SLURM_MEM_PER_NODE-unset}'); wait_done "$id"
cat slurm-*.out; fields "$id" MinMemoryCPU TRES

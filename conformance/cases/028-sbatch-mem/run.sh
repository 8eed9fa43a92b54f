#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --mem=300M --wrap 'echo node=$SLURM_MEM_PER_NODE cpu=${SLURM_MEM_PER_CPU-unset}'); wait_done "$id"
cat slurm-*.out; fields "$id" MinMemoryNode TRES

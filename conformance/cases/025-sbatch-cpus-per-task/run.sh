#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -c2 --wrap 'echo cpus=$SLURM_CPUS_PER_TASK on_node=$SLURM_CPUS_ON_NODE'); wait_done "$id"
cat slurm-*.out; fields "$id" NumCPUs CPUs/Task TRES

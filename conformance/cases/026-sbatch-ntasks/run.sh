#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -n2 --wrap 'echo ntasks=$SLURM_NTASKS nprocs=$SLURM_NPROCS tpn=$SLURM_TASKS_PER_NODE'); wait_done "$id"
cat slurm-*.out; fields "$id" NumNodes NumCPUs NumTasks TRES

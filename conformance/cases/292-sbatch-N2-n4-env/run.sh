#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -N2 -n4 -o env.out --wrap 'echo "$(hostname) $SLURM_JOB_NODELIST nnodes=$SLURM_NNODES ntasks=$SLURM_NTASKS tpn=$SLURM_TASKS_PER_NODE cpn=$SLURM_JOB_CPUS_PER_NODE"'); wait_done "$id"
cat env.out
fields "$id" NodeList NumNodes NumCPUs NumTasks BatchHost

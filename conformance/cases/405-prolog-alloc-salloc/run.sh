#!/usr/bin/env bash
. "$CASE_LIB"
salloc -N1 -J c405 bash -c 'squeue -s -h -j $SLURM_JOB_ID -o "%i %j %N"; scontrol show step $SLURM_JOB_ID -o' 2>&1
echo "rc=$?"

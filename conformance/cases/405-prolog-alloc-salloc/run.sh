#!/usr/bin/env bash
. "$CASE_LIB"
salloc -N1 -J c405 bash -c 'squeue -s -h -j $SLURM_JOB_ID -o "%i %j %N"; scontrol show step $SLURM_JOB_ID -o' >salloc.out 2>&1
echo "rc=$?"
# Slurm's salloc sometimes also prints `Job allocation N has been revoked.` after relinquishing it (as in case
# 415): left out.
grep -v 'has been revoked' salloc.out

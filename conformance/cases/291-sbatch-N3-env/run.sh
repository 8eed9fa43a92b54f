#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -N3 -o env.out --wrap 'hostname; env > env.txt; scontrol show hostnames "$SLURM_JOB_NODELIST"'); wait_done "$id"
cat env.out
slurm_env env.txt

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -n2 -c1 -J envjob2 -o env.out --wrap env); wait_done "$id"
slurm_env env.out

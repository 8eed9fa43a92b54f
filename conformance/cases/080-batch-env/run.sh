#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -J envjob -o env.out --wrap env); wait_done "$id"
slurm_env env.out

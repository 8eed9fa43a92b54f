#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --export=NONE -o env.out --wrap env); wait_done "$id"
slurm_env env.out; grep -c '^PATH=' env.out

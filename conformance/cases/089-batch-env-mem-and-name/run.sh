#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -J named --mem=500M -o env.out --wrap env); wait_done "$id"
grep -E '^SLURM_(JOB_NAME|MEM_PER_NODE|MEM_PER_CPU)=' env.out | sort

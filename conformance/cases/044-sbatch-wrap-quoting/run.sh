#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --wrap 'for i in 1 2; do echo "i=$i"; done; echo "$((6*7))"'); wait_done "$id"
cat slurm-*.out

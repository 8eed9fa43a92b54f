#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit "$CASE_DIR/job.py"); wait_done "$id"
cat slurm-*.out

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit "$CASE_DIR/job.sh" one "two words" 3); wait_done "$id"
cat slurm-*.out

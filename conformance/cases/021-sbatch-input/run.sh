#!/usr/bin/env bash
. "$CASE_LIB"
printf 'line1\nline2\n' > in.txt
id=$(submit -i in.txt --wrap 'cat; echo end'); wait_done "$id"
cat slurm-*.out; field "$id" StdIn

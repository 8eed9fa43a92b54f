#!/usr/bin/env bash
. "$CASE_LIB"
id=$(sbatch -Q --parsable --wrap true); track "$id"; echo "quiet-parsable=$([[ -n $id ]] && echo yes)"
sbatch -Q -J quiet032 -o q.out --wrap true > q.txt; echo "quiet: $(wc -c < q.txt) bytes"
track $(squeue -h -n quiet032 -o %i)

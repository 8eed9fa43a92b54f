#!/usr/bin/env bash
. "$CASE_LIB"
sbatch --wait -o w.out --wrap 'echo waited; exit 3' > sub.txt; rc=$?
track "$(sed 's/.* //' sub.txt)"
echo "rc=$rc"; cat sub.txt; cat w.out

#!/usr/bin/env bash
. "$CASE_LIB"
srun -o 'srun-%j.out' -J srunout echo hi; echo "rc=$?"
cat srun-*.out

#!/usr/bin/env bash
. "$CASE_LIB"
sbatch --test-only -n1 --wrap true; echo "rc=$?"

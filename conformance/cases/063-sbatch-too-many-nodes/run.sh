#!/usr/bin/env bash
. "$CASE_LIB"
sbatch -N 4 --wrap true; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
sbatch -c 0 --wrap true; echo "rc=$?"
sbatch -n 0 --wrap true; echo "rc=$?"

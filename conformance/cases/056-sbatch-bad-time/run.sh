#!/usr/bin/env bash
. "$CASE_LIB"
sbatch --time=abc --wrap true; echo "rc=$?"
sbatch --time=-5 --wrap true; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
sbatch --array=abc --wrap true; echo "rc=$?"
sbatch --array=1-20000 --wrap true; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
sbatch --array=10001 --wrap true; echo "rc=$?"
sbatch --array=10000 -H --parsable --wrap true > id.txt; echo "rc=$?"; track "$(cat id.txt)"

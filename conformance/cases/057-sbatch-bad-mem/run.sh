#!/usr/bin/env bash
. "$CASE_LIB"
sbatch --mem=lots --wrap true; echo "rc=$?"

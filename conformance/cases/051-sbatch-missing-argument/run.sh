#!/usr/bin/env bash
. "$CASE_LIB"
sbatch --wrap true -J; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
sbatch --bogus-option --wrap true; echo "rc=$?"

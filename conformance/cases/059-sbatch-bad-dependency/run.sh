#!/usr/bin/env bash
. "$CASE_LIB"
sbatch --dependency=foo --wrap true; echo "rc=$?"
sbatch --dependency=afterok:notanid --wrap true; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
sbatch -p nosuchpart --wrap true; echo "rc=$?"

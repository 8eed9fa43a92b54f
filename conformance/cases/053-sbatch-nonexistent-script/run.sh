#!/usr/bin/env bash
. "$CASE_LIB"
sbatch ./does-not-exist.sh; echo "rc=$?"

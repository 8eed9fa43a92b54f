#!/usr/bin/env bash
. "$CASE_LIB"
sbatch; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
: > empty.sh
sbatch empty.sh; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
SBATCH_JOB_NAME=from-env SBATCH_PARTITION=debug sbatch --parsable -H --wrap true > id.txt; id=$(cat id.txt); track "$id"
fields "$id" JobName Partition

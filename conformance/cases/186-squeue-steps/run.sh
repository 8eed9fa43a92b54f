#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J steps "$CASE_DIR/job.sh"); wait_state "$a" RUNNING
while [[ -z $(squeue -h -s -j "$a" -o %i | grep "\.0$") ]]; do sleep 0.2; done
squeue -s -j "$a" -o '%i %j %N'

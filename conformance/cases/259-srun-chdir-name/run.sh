#!/usr/bin/env bash
. "$CASE_LIB"
mkdir d; srun --chdir=d -J named bash -c 'pwd; echo $SLURM_JOB_NAME'; echo "rc=$?"

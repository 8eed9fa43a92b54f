#!/bin/bash
#SBATCH --job-name=squares
#SBATCH --array=1-4%2
#SBATCH --output=squares-%A_%a.out

# Each array task computes one square; at most two run at a time (%2).
echo "task $SLURM_ARRAY_TASK_ID of array $SLURM_ARRAY_JOB_ID: $((SLURM_ARRAY_TASK_ID * SLURM_ARRAY_TASK_ID))"

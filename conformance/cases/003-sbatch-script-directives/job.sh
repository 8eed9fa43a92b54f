#!/bin/bash
#SBATCH --job-name=refjob
#SBATCH --output=refjob-%j.out
#SBATCH --error=refjob-%j.err
#SBATCH --ntasks=2
#SBATCH --time=5
echo "hello from $SLURM_JOB_NAME"
echo "to stderr" >&2

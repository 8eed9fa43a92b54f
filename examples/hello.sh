#!/bin/bash
#SBATCH --job-name=hello
#SBATCH --output=hello-%j.out
#SBATCH --ntasks=1
#SBATCH --time=00:05:00

# An ordinary Slurm batch script: Spur runs it unchanged.
echo "Hello from job $SLURM_JOB_ID ($SLURM_JOB_NAME) on $(hostname)"
echo "Partition $SLURM_JOB_PARTITION, nodes $SLURM_JOB_NODELIST, $SLURM_CPUS_ON_NODE CPU(s)"
echo "Submitted from $SLURM_SUBMIT_DIR"

#!/usr/bin/env bash
. "$CASE_LIB"
sbatch --version; squeue --version; sinfo --version; scontrol --version; scancel --version; srun --version

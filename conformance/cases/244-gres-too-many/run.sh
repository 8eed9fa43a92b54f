#!/usr/bin/env bash
. "$CASE_LIB"
srun --gres=gpu:a100:5 true; echo "rc=$?"
sbatch --gres=gpu:5 --wrap true; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
sbatch --gres=gpu:h100:1 --wrap true; echo "rc=$?"
sbatch --gres=gpu:a100:5 --wrap true; echo "rc=$?"
sbatch --gres=tpu:1 --wrap true; echo "rc=$?"

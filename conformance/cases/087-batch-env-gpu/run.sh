#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --gres=gpu:a100:2 -o env.out --wrap env); wait_done "$id"
grep -E '^(CUDA|GPU|SLURM_GPUS|SLURM_STEP_GPUS|SLURM_JOB_GPUS)' env.out | sort

#!/usr/bin/env bash
. "$CASE_LIB"
srun --gres=gpu:a100:2 env | grep -E "GPU|CUDA|GRES" | sort; echo "rc=${PIPESTATUS[0]}"

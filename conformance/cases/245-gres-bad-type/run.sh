#!/usr/bin/env bash
. "$CASE_LIB"
srun --gres=gpu:h100:1 true; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --gpus=2 -o g.out --wrap 'echo "cuda=$CUDA_VISIBLE_DEVICES gpus=${SLURM_GPUS-unset}"'); wait_done "$a"
cat g.out; fields "$a" TresPerJob TRES

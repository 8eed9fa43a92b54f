#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --gres=gpu:a100:3 -o g.out --wrap 'echo "cuda=$CUDA_VISIBLE_DEVICES"'); wait_done "$a"
cat g.out; fields "$a" TresPerNode

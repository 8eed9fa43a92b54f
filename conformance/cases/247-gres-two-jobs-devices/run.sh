#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --gres=gpu:2 -o a.out --wrap 'echo "a=$CUDA_VISIBLE_DEVICES"; sleep 300'); wait_state "$a" RUNNING
b=$(submit --gres=gpu:2 -o b.out --wrap 'echo "b=$CUDA_VISIBLE_DEVICES"'); wait_done "$b"
while [[ ! -s a.out ]]; do sleep 0.2; done
cat a.out b.out; scontrol show node "$(hostname -s)" | grep -E -o 'AllocTRES=[^ ]*'

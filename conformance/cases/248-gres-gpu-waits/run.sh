#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --gres=gpu:4 --wrap 'sleep 300'); wait_state "$a" RUNNING
b=$(submit --gres=gpu:1 --wrap true); wait_reason "$b" Resources
squeue -h -j "$b" -o '%T %r %b'

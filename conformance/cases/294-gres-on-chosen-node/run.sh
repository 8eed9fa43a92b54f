#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -w n2 --gres=gpu:a100:2 -o g.out --wrap 'echo "$(hostname) $SLURMD_NODENAME cuda=$CUDA_VISIBLE_DEVICES nodelist=$SLURM_JOB_NODELIST"'); wait_done "$id"
cat g.out
fields "$id" NodeList ReqNodeList TresPerNode

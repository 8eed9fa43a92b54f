#!/usr/bin/env bash
. "$CASE_LIB"
cat > steps.sh <<'SCRIPT'
#!/bin/bash
echo "batch: cuda=$CUDA_VISIBLE_DEVICES shards=$SLURM_SHARDS_ON_NODE job_gpus=$SLURM_JOB_GPUS"
srun --gres=shard:3 true; echo "rc=$?"
srun --gres=gpu:1 true; echo "rc=$?"
srun --gres=shard:1 bash -c 'echo "step: cuda=$CUDA_VISIBLE_DEVICES shards=$SLURM_SHARDS_ON_NODE step_gpus=$SLURM_STEP_GPUS gpus_on_node=$SLURM_GPUS_ON_NODE"'
SCRIPT
id=$(submit -w n2 --gres=shard:2 -o steps.out steps.sh); wait_done "$id"
cat steps.out
# A two-node job of shards: each node's tasks see the GPU their shards belong to.
two=$(submit -N2 -w n1,n3 --gres=shard:1 -o two.out --wrap 'srun -l bash -c "echo \$(hostname) cuda=\$CUDA_VISIBLE_DEVICES shards=\$SLURM_SHARDS_ON_NODE" | sort'); wait_done "$two"
cat two.out

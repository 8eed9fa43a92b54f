#!/usr/bin/env bash
. "$CASE_LIB"
show() {
    echo "== $*"
    srun "$@" -l bash -c 'echo $CUDA_VISIBLE_DEVICES $GPU_DEVICE_ORDINAL $ROCR_VISIBLE_DEVICES' 2>err | sort
    grep -v "queued and waiting\|has been allocated" err || true
}
show -n2 --gres=gpu:2
show -n2 --gres=gpu:2 --gpu-bind=map_gpu:1,0
show -n2 --gres=gpu:2 --gpu-bind=single:1
show -n2 --gres=gpu:4 --gpu-bind=mask_gpu:0x3,0xc
show -n2 --gres=gpu:2 --gpu-bind=closest
show -n2 --gres=gpu:2 --gpu-bind=none
show -n2 --gpus-per-task=1
show -n2 --gpus=2 --gpu-bind=per_task:1
show -n1 --gres=gpu:2 --gpu-bind=map_gpu:3
echo "== a held job with --gpus-per-task: what it asks for"
id=$(submit -H -n2 --gpus-per-task=1 --wrap true)
scontrol show job "$id" | grep -o "TRES=[^ ]*\|TresPer[A-Za-z]*=[^ ]*"
scancel "$id"
echo "== a batch job's steps with --gpus-per-task"
id=$(submit -n2 --gpus-per-task=1 -o gpt.out --wrap 'echo batch $CUDA_VISIBLE_DEVICES; srun -l bash -c "echo \$CUDA_VISIBLE_DEVICES" | sort')
wait_done "$id"
cat gpt.out

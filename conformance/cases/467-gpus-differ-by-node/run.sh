#!/usr/bin/env bash
. "$CASE_LIB"
# GPU 0 of n1 is taken until the go file appears.
a=$(submit -J s467a -w n1 --gres=gpu:1 -o a.out --wrap "echo a cuda=\$CUDA_VISIBLE_DEVICES; while [ ! -e go ]; do sleep 0.2; done")
wait_state "$a" RUNNING
# Two nodes, one GPU on each: n1 has only GPU 1 free, n2 both.
b=$(submit -J s467b -N2 -w n1,n2 --gres=gpu:1 -o b.out --wrap "echo batch cuda=\$CUDA_VISIBLE_DEVICES job_gpus=\$SLURM_JOB_GPUS; srun -l bash -c 'echo \$SLURMD_NODENAME cuda=\$CUDA_VISIBLE_DEVICES step_gpus=\$SLURM_STEP_GPUS' | sort; while [ ! -e go ]; do sleep 0.2; done")
wait_state "$b" RUNNING
scontrol -d show job "$b" | grep -E 'JOB_GRES|Nodes=n' | sed 's/CPU_IDs=[^ ]* //'
squeue --json | jq -c --argjson id "$b" '[.jobs[] | select(.job_id == $id) | .gres_detail]'
# Both jobs still hold their GPUs: a third one-GPU job on n1 waits.
c=$(submit -J s467c -w n1 --gres=gpu:1 -o /dev/null --wrap true)
wait_reason "$c" Resources
squeue -h -n s467a,s467b,s467c -S j -o '%j %t %N %b %r'
while [ "$(grep -c cuda= b.out 2>/dev/null)" -lt 3 ]; do sleep 0.2; done
cat a.out b.out
touch go
wait_done "$a" "$b" "$c"

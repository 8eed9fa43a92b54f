#!/usr/bin/env bash
. "$CASE_LIB"
sinfo -N -h -o '%N %G'
# Each job waits for its go file, so all of them hold their shards or GPUs at once.
job() {
    local name=$1
    shift
    submit -J "s464$name" -o "$name.out" "$@" --wrap "echo cuda=\$CUDA_VISIBLE_DEVICES shards=\$SLURM_SHARDS_ON_NODE job_gpus=\$SLURM_JOB_GPUS gpus_on_node=\$SLURM_GPUS_ON_NODE; while [ ! -e go ]; do sleep 0.2; done"
}
# n1: two one-shard jobs share GPU 0.
a=$(job a -w n1 --gres=shard:1); wait_state "$a" RUNNING
b=$(job b -w n1 --gres=shard:1); wait_state "$b" RUNNING
# n2: a shard job on GPU 0, then a whole GPU: GPU 1.
c=$(job c -w n2 --gres=shard:1); wait_state "$c" RUNNING
d=$(job d -w n2 --gres=gpu:1); wait_state "$d" RUNNING
# n3: a whole GPU first (GPU 0), then two shards: GPU 1's.
e=$(job e -w n3 --gres=gpu:a100:1); wait_state "$e" RUNNING
f=$(job f -w n3 --gres=shard:2); wait_state "$f" RUNNING
for n in a b c d e f; do
    while [ ! -s "$n.out" ]; do sleep 0.2; done
    echo "$n: $(head -n1 "$n.out")"
done
scontrol -d show node n1 n2; echo "rc=$?"
scontrol -d show node | grep -E '^NodeName|Gres'
scontrol -d show job "$f" | grep -E 'JOB_GRES|GRES=|TresPerNode' | sed 's/CPU_IDs=[^ ]* //'
squeue -h -n s464a,s464b,s464c,s464d,s464e,s464f -S j -o '%j %t %N %b'
# More shards than any node has: refused at submission.
sbatch --gres=shard:5 --wrap true; echo "rc=$?"
# GPUs and shards together: refused by sbatch itself.
sbatch --gres=gpu:1,shard:1 --wrap true; echo "rc=$?"
touch go
wait_done "$a" "$b" "$c" "$d" "$e" "$f"

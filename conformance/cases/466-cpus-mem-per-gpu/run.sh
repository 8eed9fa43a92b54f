#!/usr/bin/env bash
. "$CASE_LIB"
cat > show.sh <<'SCRIPT'
#!/bin/bash
echo "cuda=$CUDA_VISIBLE_DEVICES cpus_per_gpu=$SLURM_CPUS_PER_GPU mem_per_gpu=$SLURM_MEM_PER_GPU mem_per_cpu=$SLURM_MEM_PER_CPU cpus_on_node=$SLURM_CPUS_ON_NODE job_cpus=$SLURM_JOB_CPUS_PER_NODE tasks_per_node=$SLURM_TASKS_PER_NODE ntasks=$SLURM_NTASKS gpus=$SLURM_GPUS"
SCRIPT
chmod +x show.sh
# One after the other: which GPUs a job gets depends on what else runs.
for args in "--gres=gpu:2 --cpus-per-gpu=1" "--gres=gpu:2 --mem-per-gpu=500" "--gpus=2 --cpus-per-gpu=1 --mem-per-gpu=100" \
    "--gres=gpu:1 --cpus-per-gpu=2 -n 1" "--gres=gpu:1 --mem-per-gpu=0" "--cpus-per-gpu=2" "--exclusive" "--mincpus=2" "-c 2"; do
    echo "== $args"
    # shellcheck disable=SC2086
    id=$(submit $args -o out.txt show.sh); wait_done "$id"
    cat out.txt
    scontrol show job "$id" | grep -E -o 'NumCPUs=[^ ]*|NumTasks=[^ ]*|TRES=[^ ]*|MinMemory[^ ]*|CpusPerTres=[^ ]*|MemPerTres=[^ ]*|TresPer[^ ]*'
done
for args in "--gres=gpu:1 --cpus-per-gpu=2 -c 2" "--gres=gpu:1 --mem-per-gpu=100 --mem=100" "--cpus-per-gpu=0 --gres=gpu:1" \
    "--gres=gpu:1 --cpus-per-gpu=3" "--gres=gpu:2 --mem-per-gpu=100G" "--gpus-per-socket=1"; do
    echo "== $args"
    # shellcheck disable=SC2086
    sbatch $args --wrap true; echo "rc=$?"
done
# Two GPUs on each of the one socket asked for.
id=$(submit --gpus-per-socket=2 --sockets-per-node=1 -o out.txt show.sh); wait_done "$id"
cat out.txt
scontrol show job "$id" | grep -E -o 'Socks/Node=[^ ]*|TresPer[^ ]*'
squeue -h -t all -j "$id" -O tres-per-socket,cpus-per-tres,mem-per-tres

#!/usr/bin/env bash
. "$CASE_LIB"
scontrol show partition gpudef | grep -o 'JobDefaults=[^ ]*'
show() {
    scontrol show job "$1" | grep -oE '(NumCPUs|NumTasks|MinMemoryNode|MinMemoryCPU|CpusPerTres|MemPerTres|TRES)=[^ ]*' | tr '\n' ' '
    echo
}
# One job at a time: it prints its environment, is shown while it runs, then ends.
run() {
    local name=$1 id
    shift
    id=$(submit -p gpudef -o "$name.out" "$@" --wrap 'env | grep -E "^SLURM_(MEM_PER|CPUS_ON_NODE|CPUS_PER|TASKS_PER_NODE|JOB_GPUS)" | sort | tr "\n" " "; echo; while [ ! -e go ]; do sleep 0.2; done')
    wait_state "$id" RUNNING
    echo "== $*"
    show "$id"
    touch go
    wait_done "$id"
    rm -f go
    cat "$name.out"
}
run a --gres=gpu:1
run b --gres=gpu:1 -c 1
run c --gres=gpu:1 --mem=500
run d --gres=gpu:1 --mem-per-cpu=300
run e --gres=gpu:1 --cpus-per-gpu=1
run f --gpus-per-node=1 -n 2
run g -n 1
# Two GPUs at two CPUs each are more CPUs than the node has.
sbatch -p gpudef --gres=gpu:2 -o /dev/null --wrap true; echo "rc=$?"

#!/usr/bin/env bash
# One node with 2 CPUs; no EnforcePartLimits. slurmctld sets the reason as it queues the job.
. "$CASE_LIB"
wait_pending_reason() {
    local id=$1 deadline=$((SECONDS + WAIT_LIMIT)) r
    while r=$(squeue -h -j "$id" -o %r 2>/dev/null | head -n1); [[ -z $r || $r == None ]]; do
        ((SECONDS >= deadline)) && break
        sleep 0.2
    done
}
for args in "-n2 -c3" "-c3" "-n64" "-n3" "-N2"; do
    echo "== sbatch $args"
    # shellcheck disable=SC2086
    id=$(submit $args --wrap true); echo "rc=$?"
    wait_pending_reason "$id"
    # slurmctld queues every such job with PartitionConfig; its scheduler's next pass names a node count beyond
    # the partition's (PartitionNodeLimit), which Spur's pass at submission does at once.
    [[ $args == -N2 ]] && wait_reason "$id" PartitionNodeLimit
    squeue -h -j "$id" -o '%T %r %C %D'
    fields "$id" JobState Reason NumNodes NumCPUs NumTasks CPUs/Task MinCPUsNode
done 2>&1
for args in "--mem=999999" "--gres=gpu:9"; do
    echo "== sbatch $args"
    # shellcheck disable=SC2086
    submit $args --wrap true; echo "rc=$?"
done 2>&1
# srun waits for what the partition cannot give until its job is cancelled.
srun -J beyond496 -n3 true 2>srun.err &
srun_pid=$!
deadline=$((SECONDS + WAIT_LIMIT))
until id=$(squeue -h -n beyond496 -o %i 2>/dev/null | head -n1); [[ -n $id ]] || ((SECONDS >= deadline)); do sleep 0.2; done
track "$id"
wait_pending_reason "$id"
squeue -h -j "$id" -o '%T %r %C %D'
until grep -q "queued and waiting" srun.err || ((SECONDS >= deadline)); do sleep 0.2; done
scancel "$id"
wait "$srun_pid"; echo "srun rc=$?"
cat srun.err

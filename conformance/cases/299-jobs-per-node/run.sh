#!/usr/bin/env bash
. "$CASE_LIB"
# One job on each node: each node has its own host name, and squeue/sinfo filter by node.
ids=()
for n in n1 n2 n3; do
    ids+=("$(submit -J "on-$n" -w "$n" -o "$n.out" --wrap 'echo "$(hostname) $SLURMD_NODENAME $SLURM_JOB_NODELIST"; sleep 300')")
done
for id in "${ids[@]}"; do wait_state "$id" RUNNING; done
squeue -w n2 -j "$(IFS=,; echo "${ids[*]}")" -o '%j %N %T'
squeue -w 'n[1,3]' -j "$(IFS=,; echo "${ids[*]}")" -o '%j %N %T'
sinfo -N -n 'n[2-3]' -o '%N %T'
scontrol show hostlist n1,n2,n3
for n in n1 n2 n3; do
    for ((i = 0; i < 100; i++)); do [[ -s $n.out ]] && break; sleep 0.1; done
    cat "$n.out"
done

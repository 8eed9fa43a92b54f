#!/usr/bin/env bash
# -I everywhere: a request that slurmctld would accept must not wait here.
. "$CASE_LIB"
node=$(hostname -s)
for args in "-w nosuch" "-w $node,nosuch" "-x nosuch" "-w nosuch[1-3]" "-H -w nosuch" "-C nope" "-H -C nope" \
    "-C nope|nada" "-w nosuch -C nope"; do
    echo "== sbatch $args"; sbatch $args --wrap true; echo "rc=$?"
    echo "== salloc -I $args"; salloc -I $args true; echo "rc=$?"
    echo "== srun -I $args"; srun -I $args true; echo "rc=$?"
done 2>&1
squeue -h | wc -l

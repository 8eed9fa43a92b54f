#!/usr/bin/env bash
# The three nodes have 2 CPUs each.
. "$CASE_LIB"
immediate() {
    # Slurm's revoked line races salloc's exit (see case 168).
    echo "== salloc -I $*"; salloc -I "$@" true 2>&1 | grep -v "has been revoked"; echo "rc=${PIPESTATUS[0]}"
    echo "== srun -I $*"; srun -I "$@" true; echo "rc=$?"
}
# No node has the CPUs each node must give.
for args in "-N2 --ntasks-per-node=3" "-N2 -c3"; do
    echo "== sbatch $args"; sbatch $args --wrap true; echo "rc=$?"
    immediate $args
done 2>&1
# More nodes or CPUs than the partition has: queued with reason PartitionConfig (case 496); asked to start at
# once, refused.
for args in "-N4" "-N2 -n7"; do immediate $args; done 2>&1

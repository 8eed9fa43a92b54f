#!/usr/bin/env bash
. "$CASE_LIB"
# The topology mode's topology.conf puts this node under leaf1 under spine: a job's batch script and its tasks
# see the node's switch path, as the topology/tree plugin gives it.
node=$(sinfo -h -N -o %N | head -n1)
cat > topo.sh <<'SCRIPT'
#!/bin/bash
echo "batch: $SLURM_TOPOLOGY_ADDR $SLURM_TOPOLOGY_ADDR_PATTERN"
srun -n1 bash -c 'echo "task: $SLURM_TOPOLOGY_ADDR $SLURM_TOPOLOGY_ADDR_PATTERN"'
SCRIPT
id=$(submit -o topo.out topo.sh); wait_done "$id"
sed "s/$node/NODE/g" topo.out
srun -n1 bash -c 'echo "srun: $SLURM_TOPOLOGY_ADDR $SLURM_TOPOLOGY_ADDR_PATTERN"' | sed "s/$node/NODE/g"

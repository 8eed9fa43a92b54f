#!/usr/bin/env bash
# The case runs on the host, outside the nodes' network namespaces: each task's hostname is its node's.
. "$CASE_LIB"
srun -w n2 hostname
echo "rc=$?"
srun -N2 -w n1,n3 -l bash -c 'echo $(hostname) $SLURMD_NODENAME $SLURM_NODEID' | sort
echo "rc=$?"
salloc -w n3 -N1 srun bash -c 'echo $(hostname) $SLURM_STEP_NODELIST' 2>salloc.err
echo "rc=$?"
# Slurm's salloc sometimes adds "has been revoked" as the allocation ends (a race in slurmctld's messages).
grep -v "Granted job allocation\|Relinquishing job allocation\|has been revoked\|Waiting for resource configuration\|are ready for job" salloc.err || true

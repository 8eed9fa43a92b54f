#!/usr/bin/env bash
. "$CASE_LIB"
cat > steps.sh <<'SCRIPT'
#!/bin/bash
echo "== too many nodes"; srun -N4 hostname; echo "rc=$?"
echo "== too many tasks"; srun -n7 hostname; echo "rc=$?"
echo "== -c2 -n3"; srun -c2 -n3 -l bash -c 'echo $(hostname) $SLURM_CPUS_PER_TASK' | sort; echo "rc=$?"
echo "== -w outside"; srun -w vm hostname; echo "rc=$?"
echo "== -x n1"; srun -x n1 -N2 -l hostname | sort; echo "rc=${PIPESTATUS[0]}"
echo "== --relative"; srun -N1 -r 2 hostname; echo "rc=$?"
echo "== -N2 -n1"; srun -N2 -n1 hostname; echo "rc=$?"
echo "== plane"; srun -n6 -m plane=4 -l hostname | sort; echo "rc=$?"
echo "== env batch"; echo $SLURM_NODELIST $SLURM_TASKS_PER_NODE $SLURM_NTASKS $SLURM_CPUS_ON_NODE $SLURM_JOB_CPUS_PER_NODE
SCRIPT
id=$(submit -N3 -n6 -o steps.out steps.sh); wait_done "$id"
cat steps.out
# From the submit host, each in an allocation of its own.
quiet() { grep -v "Granted job allocation\|Relinquishing job allocation\|has been revoked\|queued and waiting for resources\|has been allocated resources" "$@" || true; }
echo "== -N2 -n1 outside"; srun -N2 -n1 hostname 2>e1; echo "rc=$?"; quiet e1
echo "== -n4 -N2 -l"; srun -n4 -N2 -l hostname 2>e2 | sort; quiet e2
echo "== -n3 cyclic"; srun -n3 -N3 -m cyclic -l printenv SLURM_STEP_TASKS_PER_NODE 2>e3 | sort; quiet e3
echo "== --exclusive -N1"; srun --exclusive -N1 bash -c 'echo $SLURM_CPUS_ON_NODE $SLURM_JOB_CPUS_PER_NODE' 2>e4; quiet e4
echo "== salloc -N2 env"; salloc -N2 bash -c 'echo $SLURM_NODELIST $SLURM_JOB_NUM_NODES $SLURM_NNODES $SLURM_TASKS_PER_NODE $SLURM_JOB_CPUS_PER_NODE' 2>e5; quiet e5

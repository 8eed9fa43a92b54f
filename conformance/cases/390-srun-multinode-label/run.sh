#!/usr/bin/env bash
. "$CASE_LIB"
cat > steps.sh <<'SCRIPT'
#!/bin/bash
srun -N3 -n6 -l hostname | sort
echo "rc=$?"
srun -N2 -n4 -l -m cyclic bash -c 'echo $(hostname) $SLURM_PROCID $SLURM_LOCALID $SLURM_NODEID $SLURM_GTIDS $SLURM_STEP_TASKS_PER_NODE' | sort
srun -N3 -l bash -c 'exit $SLURM_PROCID' 2> errors.txt
echo "rc=$?"
sort errors.txt
srun -N2 -n3 -l bash -c 'echo out $SLURM_PROCID; echo err $SLURM_PROCID >&2' 2>&1 | sort
SCRIPT
id=$(submit -N3 -n6 -o steps.out steps.sh); wait_done "$id"
cat steps.out

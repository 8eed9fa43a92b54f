#!/usr/bin/env bash
. "$CASE_LIB"
WAIT_LIMIT=70
cat > steps.sh <<'SCRIPT'
#!/bin/bash
#SBATCH -n1
#SBATCH hetjob
#SBATCH -n2
srun --het-group=0,1 bash -c 'env > env01.$SLURM_PROCID.txt'
echo "rc=$?"
srun --het-group=1 bash -c 'env > env1.$SLURM_PROCID.txt'
echo "rc=$?"
srun -l hostname : hostname | sort
srun -l -n1 bash -c 'echo A $SLURM_PROCID $SLURM_NTASKS' : -n1 bash -c 'echo B $SLURM_PROCID $(hostname)' | sort
srun -l --het-group=1,0 -n1 bash -c 'echo $SLURM_PROCID $SLURM_STEP_ID $SLURM_JOB_NODELIST' | sort
srun --het-group=2 true
echo "rc=$?"
srun --het-group=x true
echo "rc=$?"
SCRIPT
id=$(submit -o steps.out steps.sh)
track $((id + 1))
wait_done "$id" $((id + 1))
cat steps.out
# Ports and pids differ from run to run on either system.
skip='^SLURM_(SRUN_COMM_PORT|STEP_LAUNCHER_PORT|TASK_PID|LAUNCH_NODE_IPADDR|SRUN_COMM_HOST|WORKING_CLUSTER|CONF|SUBMIT_DIR)='
for rank in 0 1 2; do
    echo "== --het-group=0,1 task $rank"
    slurm_env "env01.$rank.txt" | grep -vE "$skip"
done
for rank in 0 1; do
    echo "== --het-group=1 task $rank"
    slurm_env "env1.$rank.txt" | grep -vE "$skip"
done

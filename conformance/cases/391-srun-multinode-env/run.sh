#!/usr/bin/env bash
. "$CASE_LIB"
cat > steps.sh <<'SCRIPT'
#!/bin/bash
srun -N3 -n5 bash -c 'env > env.$SLURM_PROCID.txt'
echo "rc=$?"
SCRIPT
id=$(submit -N3 -n6 -o steps.out steps.sh); wait_done "$id"
cat steps.out
for rank in 0 1 2 3 4; do
    echo "== task $rank"
    # Ports and pids differ from run to run on either system.
    slurm_env "env.$rank.txt" | grep -vE '^SLURM_(SRUN_COMM_PORT|STEP_LAUNCHER_PORT|TASK_PID|LAUNCH_NODE_IPADDR|SRUN_COMM_HOST|WORKING_CLUSTER|CONF|SUBMIT_DIR)='
done

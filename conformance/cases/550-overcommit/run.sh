#!/usr/bin/env bash
. "$CASE_LIB"
h=$(hostname -s)
# Slurm may not have freed the previous job's CPUs yet when the next srun asks (it then says it waits).
settled() { grep -v -E 'queued and waiting for resources|has been allocated resources'; }
# The reference node has 2 CPUs: 4 tasks fit only overcommitted.
srun -O -n4 hostname 2>&1 | settled | sed "s/^$h\$/NODE/"; echo "rc=${PIPESTATUS[0]}"
srun --overcommit -n4 -l echo hi 2>&1 | settled | sort; echo "rc=${PIPESTATUS[0]}"
srun -N1-2 -n4 -O -l printenv SLURM_NTASKS SLURM_NNODES SLURM_CPUS_ON_NODE SLURM_JOB_CPUS_PER_NODE \
    SLURM_TASKS_PER_NODE SLURM_OVERCOMMIT 2>&1 | settled | sort -s -n -k1,1; echo "rc=${PIPESTATUS[0]}"
srun -n4 -O -c2 -l printenv SLURM_CPUS_PER_TASK SLURM_JOB_CPUS_PER_NODE 2>&1 | settled | sort -s -n -k1,1
echo "rc=${PIPESTATUS[0]}"
# Without -O the same request cannot start now (it would pend): --immediate says so.
srun -n4 --immediate=1 true 2>&1 | sed -E 's/[0-9]{4,}/ID/g'; echo "rc=$?"
j=$(submit -O -n4 -o oc.out --wrap 'srun -l printenv SLURM_PROCID | sort; printenv SLURM_OVERCOMMIT SLURM_NTASKS SLURM_JOB_CPUS_PER_NODE')
wait_done "$j"
fields "$j" NumNodes NumCPUs NumTasks CPUs/Task JobState
cat oc.out
# (Slurm's racy "Job allocation N has been revoked." line after salloc's own is left out.)
wait_node idle
salloc -O -n4 bash -c 'printenv SLURM_OVERCOMMIT SLURM_NTASKS SLURM_JOB_CPUS_PER_NODE; srun -l true; echo "srun rc=$?"' 2>&1 |
    grep -v 'has been revoked' | sed -E 's/[0-9]{4,}/ID/g'
# A step inside a 1-CPU allocation: -O lets it run 3 tasks, without -O it cannot have them.
j=$(submit -n1 -o step.out --wrap 'srun -O -n3 -l true; echo "O rc=$?"; srun -n3 -l true; echo "plain rc=$?"')
wait_done "$j"
sed -E 's/[0-9]{4,}/ID/g' step.out

#!/usr/bin/env bash
. "$CASE_LIB"
WAIT_LIMIT=70
cat > het.sh <<'SCRIPT'
#!/bin/bash
#SBATCH -J first -t 7 -n1 -c2
#SBATCH hetjob
#SBATCH -n2
#SBATCH hetjob
#SBATCH -J third -n1
echo "ran on $(hostname) for $SLURM_JOB_ID size $SLURM_HET_SIZE"
exit 3
SCRIPT
a=$(submit -o het.out het.sh)
track $((a + 1)) $((a + 2))
wait_done "$a" $((a + 1)) $((a + 2))
cat het.out
for id in "$a" $((a + 1)) $((a + 2)); do
    fields "$id" JobId HetJobId HetJobOffset HetJobIdSet JobName TimeLimit NumTasks CPUs/Task JobState Reason ExitCode
done
squeue -t all -j "$a" -o '%i|%j|%T|%r'

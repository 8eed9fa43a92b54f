#!/usr/bin/env bash
# The case's node has 2 CPUs, about 23 GB and no temporary disk configured. -I keeps a request that slurmctld
# would queue from waiting here.
. "$CASE_LIB"
for args in "--mincpus=3" "--mem=30G" "--mem=30G --tmp=1G" "--tmp=1G" "--mincpus=3 --mem=30G" "-N0" \
    "--mem-per-cpu=30G" "--mem-per-cpu=20G -n2"; do
    echo "== sbatch $args"; sbatch $args --wrap true; echo "rc=$?"
    # Slurm's salloc prints the revoked line when slurmctld's message reaches it, which races its exit: the line
    # comes before or after the error or not at all (compat-cli/tests/srun_salloc.rs checks Spur's).
    echo "== salloc -I $args"; salloc -I $args true 2>&1 | grep -v "has been revoked" | sort; echo "rc=${PIPESTATUS[0]}"
    echo "== srun -I $args"; srun -I $args true; echo "rc=$?"
done 2>&1
echo "== held"
held=$(submit -H --mem=30G --wrap true)
echo "rc=$?"
squeue -h -j "$held" -o "%t %r %m"
scancel "$held"
echo "== mincpus"
job=$(submit --mincpus=2 -o mincpus.out --wrap 'echo $SLURM_CPUS_ON_NODE $SLURM_JOB_CPUS_PER_NODE $SLURM_NTASKS')
wait_done "$job"
cat mincpus.out
scontrol show job "$job" | grep -oE "NumCPUs=[0-9]+|MinCPUsNode=[0-9]+|TRES=cpu=[0-9]+"
squeue -h | wc -l

#!/usr/bin/env bash
# Known workload on a cluster with accounting; prints the ids.
set -u
ok=$(sbatch --parsable -J c625ok -o /dev/null --wrap 'sleep 1')
bad=$(sbatch --parsable -J c625bad -o /dev/null --wrap 'exit 3')
steps=$(sbatch --parsable -J c625steps -o /dev/null -n 2 --wrap 'srun -n 2 true; srun -n 1 -J two false; true')
held=$(sbatch --parsable -J c625held -H -o /dev/null --wrap 'true')
arr=$(sbatch --parsable -J c625arr -a 1-2 -o /dev/null --wrap 'true')
sleep 1; scancel "$held"
for i in $(seq 1 200); do
  n=$(squeue -h | wc -l); [ "$n" = 0 ] && break; sleep 0.3
done
for i in $(seq 1 100); do
  n=$(sacct -a -X -n -P -o State,JobName | grep -c -E '^(PENDING|RUNNING)|allocation$')
  [ "$n" = 0 ] && break; sleep 0.5
done
sleep 3
echo "$ok $bad $steps $held $arr"

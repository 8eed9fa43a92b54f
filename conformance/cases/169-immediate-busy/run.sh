#!/usr/bin/env bash
# The case's node has 2 CPUs. Slurm's salloc prints its revoked line when slurmctld's message reaches it, which
# races its exit (case 168); the ids the refusals use up are counted instead.
. "$CASE_LIB"
busy=$(submit -n2 --wrap 'sleep 60'); wait_state "$busy" RUNNING
echo "== busy"
salloc -I -n1 true 2>&1 | grep -v "has been revoked"; echo "rc=${PIPESTATUS[0]}"
srun -I -n1 true; echo "rc=$?"
waiting=$(submit -n1 --wrap true)
echo "== behind a waiting job"
salloc -I -n1 true 2>&1 | grep -v "has been revoked"; echo "rc=${PIPESTATUS[0]}"
srun -I -n1 true; echo "rc=$?"
# Each refusal used up an id: the next job's is three past the waiting job's.
next=$(submit -H --wrap true)
echo "ids used: $((next - waiting))"
scancel "$busy" "$waiting" "$next"

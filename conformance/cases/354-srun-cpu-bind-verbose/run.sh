#!/usr/bin/env bash
. "$CASE_LIB"
cat > steps.sh <<'SCRIPT'
#!/bin/bash
show() { echo "== $*"; srun "$@" true 2>&1 | sort; }
show -n2 --cpu-bind=verbose
show -n2 --cpu-bind=verbose,cores
show -n2 --cpu-bind=v,threads
show -n2 --cpu-bind=verbose,none
show -n2 --cpu-bind=verbose,map_cpu:1,0
show -n1 --cpu-bind=verbose,mask_cpu:0x2
show -n2 --cpu-bind=verbose,rank
show -n1 -c2 --cpu-bind=verbose,cores
show -n2 --cpu-bind=quiet,cores
SCRIPT
id=$(submit -n2 -o steps.out steps.sh); wait_done "$id"
sed -E 's/\[[0-9]+\]/[PID]/' steps.out
echo "== srun's own allocation"
srun -n2 --cpu-bind=verbose true 2>&1 | grep -v "queued and waiting\|has been allocated" | sed -E 's/\[[0-9]+\]/[PID]/' | sort

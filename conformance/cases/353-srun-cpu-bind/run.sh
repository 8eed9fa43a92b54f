#!/usr/bin/env bash
. "$CASE_LIB"
cat > steps.sh <<'SCRIPT'
#!/bin/bash
show() { srun "$@" -l grep Cpus_allowed_list /proc/self/status | sort; }
echo "== batch"; grep Cpus_allowed_list /proc/self/status
echo "== -n2"; show -n2
echo "== -n1 -c2"; show -n1 -c2
echo "== none"; show -n2 --cpu-bind=none
echo "== map_cpu:1,0"; show -n2 --cpu-bind=map_cpu:1,0
echo "== mask_cpu:0x2"; show -n1 --cpu-bind=mask_cpu:0x2
echo "== cores"; show -n2 --cpu-bind=cores
SCRIPT
id=$(submit -n2 -o steps.out steps.sh); wait_done "$id"
cat steps.out
echo "== srun's own allocation"
srun -n2 -l grep Cpus_allowed_list /proc/self/status 2>err | sort
grep -v "queued and waiting\|has been allocated" err || true

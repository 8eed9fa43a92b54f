#!/usr/bin/env bash
. "$CASE_LIB"
cat > steps.sh <<'SCRIPT'
#!/bin/bash
# The smallest memory limit on the way from this process's memory cgroup up to the root.
limit='d=/sys/fs/cgroup/memory$(grep -oE "memory:.*" /proc/self/cgroup | cut -d: -f2); m=; while [ -f $d/memory.limit_in_bytes ]; do v=$(cat $d/memory.limit_in_bytes); [ -z "$m" ] || [ "$v" -lt "$m" ] && m=$v; d=${d%/*}; done; echo'
eat='head -c 200M /dev/zero | tail | wc -c; echo'
srun --mem=50M bash -c "$eat 1-after \$?"
echo "1-srun rc=$?"
srun bash -c "$eat 2-after \$?"
echo "2-srun rc=$?"
bash -c "$limit 3-batch-limit \$m"
srun bash -c "$limit 4-step-limit \$m"
srun --mem=100M bash -c "$limit 5-step-mem-limit \$m"
SCRIPT
id=$(submit --mem=500M -o steps.out steps.sh); wait_done "$id"
# slurmstepd's oom line, srun's own lines and the tasks' output reach the file in an order that varies.
sed -E -e 's/slurmstepd-[^:]+:/slurmstepd-NODE:/' steps.out | sort
squeue -h -t all -j "$id" -o "%T %r"

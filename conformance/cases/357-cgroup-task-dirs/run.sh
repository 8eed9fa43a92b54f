#!/usr/bin/env bash
. "$CASE_LIB"
cat > steps.sh <<'SCRIPT'
#!/bin/bash
# Where this process sits below its job, controller by controller, and its step's memory limit (a task's own
# directory has none).
where='d=/sys/fs/cgroup/memory$(grep memory /proc/self/cgroup | cut -d: -f3); [ -f $d/../memory.limit_in_bytes ] && case $d in */task_*) d=$d/..;; esac; echo $(grep -E ":(memory|devices|cpuset|freezer):" /proc/self/cgroup | sed -E "s#^[0-9]+:([a-z]+):.*/job_[0-9]+/#\1 #" | sort | tr "\n" " ") limit $(cat $d/memory.limit_in_bytes)'
echo "batch: $(bash -c "$where")"
show() { srun "$@" bash -c "echo \$SLURM_PROCID: \$($where)" | sort; }
echo "== -n2 --mem-per-cpu=60M"; show -n2 --mem-per-cpu=60M
echo "== -n1 -c2 --mem-per-cpu=40M"; show -n1 -c2 --mem-per-cpu=40M
echo "== -n2 --mem=100M"; show -n2 --mem=100M
echo "== -n1"; show -n1
SCRIPT
id=$(submit -n2 --mem=500M -o steps.out steps.sh); wait_done "$id"
cat steps.out

#!/usr/bin/env bash
. "$CASE_LIB"
trap '_cleanup_jobs; for p in p411 p411b; do scontrol delete partition=$p >/dev/null 2>&1; done' EXIT
h=$(hostname -s)
nobody() { su nobody -s /bin/bash -c "$*"; }
scontrol create partitionname=p411 nodes="$h" maxtime=1:00:00 state=down prioritytier=3 2>&1; echo "rc=$?"
scontrol show partition p411; echo "rc=$?"
scontrol create partitionname=p411b 2>&1; echo "rc=$?"
scontrol show partition p411b; echo "rc=$?"
scontrol -o show partition p411b; echo "rc=$?"
scontrol create partitionname=p411 2>&1; echo "rc=$?"
scontrol create partitionname=debug 2>&1; echo "rc=$?"
# Refused options create nothing (a bad MaxNodes/MinNodes number is left out: Slurm ignores the field and goes on,
# see docs/compatibility.md).
scontrol create partitionname=p411c maxtime=abc 2>&1; echo "rc=$?"
scontrol create partitionname=p411c state=foo 2>&1; echo "rc=$?"
scontrol create partitionname=p411c default=maybe 2>&1; echo "rc=$?"
scontrol create partitionname=p411c oversubscribe=bad 2>&1; echo "rc=$?"
scontrol create partition partitionname=p411c 2>&1; echo "rc=$?"
scontrol create nodes=vm 2>&1; echo "rc=$?"
scontrol show partition p411c 2>&1; echo "rc=$?"
# Updates of any field.
scontrol update partitionname=p411b nodes="$h" maxtime=10 defaulttime=5 maxnodes=1 oversubscribe=force:2 allowgroups=root,daemon denyaccounts=x hidden=no rootonly=yes defmempercpu=50 2>&1; echo "rc=$?"
scontrol -o show partition p411b; echo "rc=$?"
scontrol update partitionname=p411b maxtime=unlimited maxnodes=unlimited nodes= defmempernode=2048 maxmempernode=4096 2>&1; echo "rc=$?"
scontrol -o show partition p411b; echo "rc=$?"
scontrol update partitionname=p411b 2>&1; echo "rc=$?"
scontrol update partitionname=p411b bogus=1 2>&1; echo "rc=$?"
scontrol update partitionname=p411b maxtime=abc 2>&1; echo "rc=$?"
scontrol update partitionname=nosuch411 maxtime=10 2>&1; echo "rc=$?"
# Default=YES moves the default partition; p411b, without nodes, is listed with 0 nodes.
scontrol update partitionname=p411 default=yes state=up 2>&1; echo "rc=$?"
sinfo -h -o '%P %a %l %D'
scontrol update partitionname=debug default=yes 2>&1; echo "rc=$?"
sinfo -h -o '%P %a %l %D'
# Jobs keep a partition in use; a finished one does not.
j=$(submit -p p411 --hold --wrap 'sleep 1'); wait_state "$j" PENDING
scontrol delete partition=p411 2>&1; echo "rc=$?"
scancel "$j"; wait_done "$j"
# Non-administrators.
nobody scontrol create partitionname=p411d 2>&1; echo "rc=$?"
nobody scontrol update partitionname=p411 maxtime=5 2>&1; echo "rc=$?"
nobody scontrol delete partition=p411 2>&1; echo "rc=$?"
nobody scontrol create nodename=n411 cpus=1 state=future 2>&1; echo "rc=$?"
scontrol create nodename=n411 cpus=1 2>&1; echo "rc=$?"
scontrol delete partition=p411 2>&1; echo "rc=$?"
scontrol delete partitionname=p411b 2>&1; echo "rc=$?"
scontrol delete partition=nosuch411 2>&1; echo "rc=$?"
scontrol delete partition 2>&1; echo "rc=$?"
scontrol show partition -o | cut -d' ' -f1

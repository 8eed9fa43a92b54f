#!/usr/bin/env bash
. "$CASE_LIB"
trap '_cleanup_jobs; scontrol delete reservation c382 >/dev/null 2>&1' EXIT
h=$(hostname -s)
# Jobs an earlier case left behind must be gone, or the node would not read as reserved.
wait_node idle
scontrol create reservation ReservationName=c382 StartTime=now Duration=30 Nodes="$h" Users=root Flags=MAINT; echo "rc=$?"
wait_node maint
sinfo -h -o '%t %T'
scontrol show node "$h" | grep -o 'State=[^ ]*'
j=$(submit -o /dev/null --wrap 'sleep 30')
wait_reason "$j" "ReqNodeNotAvail, Reserved for maintenance"
squeue -h -j "$j" -o '%T|%r'
field "$j" Reason
scontrol delete reservation c382; echo "rc=$?"
wait_state "$j" RUNNING
squeue -h -j "$j" -o '%T|%r'

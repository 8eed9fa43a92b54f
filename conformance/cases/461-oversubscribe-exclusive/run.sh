#!/usr/bin/env bash
. "$CASE_LIB"
drop_partitions_on_exit p461
h=$(hostname -s)
scontrol create partitionname=p461 nodes="$h" oversubscribe=EXCLUSIVE 2>&1; echo "rc=$?"
sinfo -h -p p461 -o '%P %h'
# Held, a job of the partition already says it takes whole nodes, unless it asked -s.
held=$(submit -p p461 -H --wrap 'sleep 300')
asks=$(submit -p p461 -H -s --wrap 'sleep 300')
squeue -j "$held,$asks" -S i -h -o '%t %C %h'
a=$(submit -p p461 -J x461 --wrap 'sleep 300')
b=$(submit -p p461 -J x461 --wrap 'sleep 300')
wait_state "$a" RUNNING
wait_reason "$b" Resources
squeue -j "$a,$b" -S i -o '%i %P %t %C %h %m %r'
fields "$a" NumCPUs NumTasks MinCPUsNode TRES OverSubscribe
fields "$b" NumCPUs OverSubscribe
scontrol show node "$h" | grep -o 'CPUAlloc=[0-9]*'
sinfo -h -p p461 -o '%C %T'

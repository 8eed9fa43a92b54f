#!/usr/bin/env bash
. "$CASE_LIB"
drop_partitions_on_exit p463
h=$(hostname -s)
# --exclusive without a memory request: every CPU, and the default memory per CPU for each (not the node's).
e=$(submit -J e463 --exclusive --wrap 'sleep 300')
wait_state "$e" RUNNING
fields "$e" NumCPUs MinMemoryCPU TRES OverSubscribe
squeue -j "$e" -h -o '%t %C %m %h'
scancel "$e"; wait_done "$e"
# In an OverSubscribe=FORCE:2 partition the --exclusive job still takes every CPU, but shares them: two one-CPU
# jobs run beside it, a third waits.
scontrol create partitionname=p463 nodes="$h" oversubscribe=FORCE:2 2>&1; echo "rc=$?"
x=$(submit -p p463 -J x463 --exclusive --wrap 'sleep 300')
wait_state "$x" RUNNING
ids=()
for i in 1 2 3; do ids+=("$(submit -p p463 -J f463 --wrap 'sleep 300')"); done
wait_state "${ids[0]}" RUNNING; wait_state "${ids[1]}" RUNNING
wait_reason "${ids[2]}" Resources
squeue -j "$x,$(IFS=,; echo "${ids[*]}")" -S i -o '%i %P %t %C %m %h %r'
fields "$x" NumCPUs TRES OverSubscribe
scontrol show node "$h" | grep -o 'CPUAlloc=[0-9]*'

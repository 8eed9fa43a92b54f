#!/usr/bin/env bash
. "$CASE_LIB"
drop_partitions_on_exit p460
h=$(hostname -s)
scontrol create partitionname=p460 nodes="$h" oversubscribe=FORCE:2 2>&1; echo "rc=$?"
sinfo -h -p p460 -o '%P %h'
# Two CPUs, two jobs per core: four one-CPU jobs run at once, the fifth waits.
ids=()
for i in 1 2; do ids+=("$(submit -p p460 -J f460 --wrap 'sleep 300')"); done
for id in "${ids[@]}"; do wait_state "$id" RUNNING; done
# Sharing jobs spread over idle cores first.
scontrol show node "$h" | grep -o 'CPUAlloc=[0-9]*'
for i in 3 4 5; do ids+=("$(submit -p p460 -J f460 --wrap 'sleep 300')"); done
for id in "${ids[@]:0:4}"; do wait_state "$id" RUNNING; done
wait_reason "${ids[4]}" Resources
list=$(IFS=,; echo "${ids[*]}")
squeue -j "$list" -S i -o '%i %P %t %C %h %r'
scontrol show node "$h" | grep -o 'CPUAlloc=[0-9]*'
sinfo -h -p p460 -o '%C %T'
fields "${ids[0]}" NumCPUs OverSubscribe
fields "${ids[4]}" NumCPUs OverSubscribe
# One ends: the waiting sharer takes its place.
scancel "${ids[0]}"; wait_done "${ids[0]}"
wait_state "${ids[4]}" RUNNING
squeue -j "$list" -S i -t R -h -o '%i %t'

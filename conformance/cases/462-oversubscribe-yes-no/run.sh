#!/usr/bin/env bash
. "$CASE_LIB"
drop_partitions_on_exit p462
h=$(hostname -s)
scontrol create partitionname=p462 nodes="$h" oversubscribe=YES:2 2>&1; echo "rc=$?"
sinfo -h -p p462 -o '%P %h'
# OverSubscribe=NO (the default partition) ignores -s: two one-CPU jobs fill the node.
n=()
for i in 1 2 3; do n+=("$(submit -s -J n462 --wrap 'sleep 300')"); done
wait_state "${n[0]}" RUNNING; wait_state "${n[1]}" RUNNING
wait_reason "${n[2]}" Resources
squeue -j "$(IFS=,; echo "${n[*]}")" -S i -o '%i %P %t %C %h %r'
scancel "${n[@]}"; wait_done "${n[@]}"
# YES:2: jobs asking -s share cores, up to two per core.
s=()
for i in 1 2 3 4 5; do s+=("$(submit -p p462 -s -J s462 --wrap 'sleep 300')"); done
for id in "${s[@]:0:4}"; do wait_state "$id" RUNNING; done
wait_reason "${s[4]}" Resources
# A job that does not ask finds no core free of them and waits behind the first waiting sharer.
p=$(submit -p p462 -J p462 --wrap 'sleep 300')
wait_reason "$p" Priority
squeue -j "$(IFS=,; echo "${s[*]},$p")" -S i -o '%i %P %t %C %h %r'
scontrol show node "$h" | grep -o 'CPUAlloc=[0-9]*'
fields "${s[0]}" OverSubscribe
fields "$p" OverSubscribe
scancel "${s[@]}"; wait_done "${s[@]}"
wait_state "$p" RUNNING
# --exclusive in a YES partition: whole node, nothing shared.
x=$(submit -p p462 --exclusive -H --wrap 'sleep 300')
squeue -j "$x" -h -o '%t %C %h'

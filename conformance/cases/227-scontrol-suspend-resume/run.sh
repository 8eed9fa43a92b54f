#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --wrap 'i=0; while true; do i=$((i+1)); echo $i > count; sleep 0.1; done'); wait_state "$a" RUNNING
while [[ ! -s count ]]; do sleep 0.1; done
scontrol suspend "$a"; echo "suspend rc=$?"
wait_state "$a" SUSPENDED
squeue -h -j "$a" -o '%t %T %r'
scontrol show job "$a" | grep -o 'JobState=[A-Z]* Reason=[A-Za-z]*\|SuspendTime=[^ ]*'
# Stopped: the counter stands still.
c1=$(cat count); sleep 1; c2=$(cat count); [[ $c1 == "$c2" ]] && echo "stopped"
scontrol suspend "$a"; echo "suspend again rc=$?"
scontrol resume "$a"; echo "resume rc=$?"
wait_state "$a" RUNNING
while [[ $(cat count) == "$c2" ]]; do sleep 0.1; done; echo "counting again"
scontrol resume "$a"; echo "resume running rc=$?"
scontrol suspend 999999; echo "unknown rc=$?"
b=$(submit -H --wrap true); scontrol suspend "$b"; echo "pending rc=$?"
scancel "$a"; wait_done "$a"; fields "$a" JobState

#!/usr/bin/env bash
. "$CASE_LIB"
sinfo -o "%P %M %p"
scontrol show partition low | grep -o "PreemptMode=[A-Z]*\|PriorityTier=[0-9]*"
echo "== REQUEUE: debug has the cluster's PreemptMode"
victim=$(submit -p debug -n2 -t 5 --wrap "sleep 300")
wait_state "$victim" RUNNING
urgent=$(submit -p high -n2 -t 5 --wrap "sleep 300")
wait_state "$urgent" RUNNING
wait_state "$victim" PENDING
squeue -j "$victim,$urgent" -o "%.18i %.9P %.8T" -S i
fields "$victim" JobState Restarts ExitCode Requeue
scancel "$urgent" "$victim"
wait_done "$urgent" "$victim"
echo "== CANCEL: partition low"
victim=$(submit -p low -n2 -t 5 --wrap "sleep 300")
wait_state "$victim" RUNNING
urgent=$(submit -p high -n2 -t 5 --wrap "sleep 300")
wait_state "$urgent" RUNNING
wait_done "$victim"
squeue -t all -j "$victim,$urgent" -o "%.18i %.9P %.10T %.6r" -S i
fields "$victim" JobState Reason Restarts ExitCode
echo "== scontrol show job: PreemptEligibleTime and PreemptTime"
scontrol show job "$victim" | grep -E "JobState|Preempt|ExitCode"
scontrol show job "$urgent" | grep -E "JobState|Preempt"

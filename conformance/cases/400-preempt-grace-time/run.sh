#!/usr/bin/env bash
. "$CASE_LIB"
# Slurm ends a victim whose grace time is over at its next scheduling attempt (about 25 s later here).
WAIT_LIMIT=50
scontrol show partition grace | grep -o "GraceTime=[0-9]*\|PreemptMode=[A-Z]*"
# One process, so that the exit code cannot depend on which of shell and child the signal reaches first.
victim=$(submit -p grace -n2 -t 5 --wrap "exec sleep 300")
wait_state "$victim" RUNNING
urgent=$(submit -p high -n2 -t 5 --wrap "sleep 300")
wait_reason "$urgent" Resources
echo "== during the grace time"
squeue -j "$victim,$urgent" -o "%.18i %.9P %.8T %.10r" -S i
preempted=$(field "$victim" PreemptTime)
[[ $preempted != None ]] && echo "PreemptTime set"
echo "EndTime - PreemptTime = $(($(date -d "$(field "$victim" EndTime)" +%s) - $(date -d "$preempted" +%s)))"
echo "== after it"
wait_state "$urgent" RUNNING
wait_done "$victim"
fields "$victim" JobState Reason ExitCode
[[ $(field "$victim" PreemptTime) != None ]] && echo "PreemptTime set"
squeue -j "$urgent" -o "%.18i %.9P %.8T" -S i

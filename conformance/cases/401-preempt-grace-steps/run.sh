#!/usr/bin/env bash
. "$CASE_LIB"
cat >job.sh <<'JOB'
#!/bin/bash
srun bash -c 'trap "echo step got TERM; exit 3" TERM; echo step running; while :; do sleep 0.2; done'
echo "srun=$?"
JOB
victim=$(submit -p grace -n2 -t 5 -o victim.out job.sh)
wait_state "$victim" RUNNING
# Preempt only once the step runs, so that there is a step to signal.
until grep -q "step running" victim.out 2>/dev/null; do sleep 0.2; done
urgent=$(submit -p high -n2 -t 5 --wrap "sleep 300")
wait_done "$victim"
wait_state "$urgent" RUNNING
fields "$victim" JobState Reason ExitCode
[[ $(field "$victim" PreemptTime) != None ]] && echo "PreemptTime set"
grep -x "step running\|step got TERM\|srun=3" victim.out

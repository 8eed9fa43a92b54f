#!/usr/bin/env bash
. "$CASE_LIB"
t() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}/T/g'; }
same() { [ "$1" = "$2" ] && echo "$3: same" || echo "$3: differ ($1 / $2)"; }
field() { scontrol show job "$1" | grep -oE "$2=\S+" | cut -d= -f2; }
b=$(submit --begin=now+300 -o /dev/null --wrap true)
echo "begin: $(squeue -h -j "$b" -o '%T %r')"
same "$(field "$b" StartTime)" "$(field "$b" EligibleTime)" "eligible is the begin time"
scontrol update jobid="$b" StartTime=now+600
same "$(field "$b" StartTime)" "$(field "$b" EligibleTime)" "after update StartTime"
scancel "$b"
sleep 2
same "$(sacct -j "$b" -X -n -P -o Start)" "$(sacct -j "$b" -X -n -P -o End)" "sacct start is the end"
# (sacct's Eligible of this job is racy in Slurm: Unknown or the begin time, as slurmdbd hears of the update.)
sacct -j "$b" -X -n -P -o State
h=$(submit --begin=now+300 -H -o /dev/null --wrap true)
scontrol show job "$h" | grep -oE 'Reason=\S+|EligibleTime=\S+' | t
scancel "$h"
id=$(submit -o /dev/null --wrap 'sleep 300'); wait_state "$id" RUNNING
scontrol requeue "$id"
WAIT_LIMIT=8 wait_reason "$id" BeginTime
scontrol show job "$id" | grep -oE 'Restarts=\S+|EligibleTime=\S+|Reason=\S+' | t
same "$(field "$id" StartTime)" "$(field "$id" EligibleTime)" "requeued: eligible is the end of the delay"
scancel "$id"

#!/usr/bin/env bash
# SchedMD's tests update a pending job's StartTime (test_scontrol_update: `StartTime=now`) and a pending array's
# ArrayTaskThrottle; Slurm reads StartTime with its time parser (a past time means now, an unreadable one is
# reported and leaves "No changes specified").
. "$CASE_LIB"
r() { echo "\$ $*"; "$@" 2>&1; echo "rc=$?"; }
f() { scontrol show job "$1" | tr ' ' '\n' | grep -E "^($2)=" ; }
# Hours from now to the job's StartTime, rounded.
hours() { echo "StartTime in $(( ($(date -d "$(f "$1" StartTime | cut -d= -f2)" +%s) - $(date +%s) + 1800) / 3600 ))h"; }
a=$(submit --begin=now+1hour --wrap 'true')
wait_reason "$a" BeginTime
r f "$a" 'JobState|Reason'
r hours "$a"
r scontrol update jobid="$a" StartTime=now
wait_state "$a" RUNNING >/dev/null 2>&1 || true
wait_done "$a"
r f "$a" 'JobState|Reason'
b=$(submit --hold --wrap 'true')
r scontrol update jobid="$b" StartTime=now+2hours
r f "$b" 'JobState|Reason'
r hours "$b"
r scontrol update jobid="$b" StartTime=bogus
r scontrol update jobid="$b" StartTime=
r scontrol update jobid="$b" StartTime=2030-01-01T00:00:00
r f "$b" 'StartTime'
r scontrol update jobid="$b" EligibleTime=2031-02-03T04:05:06
r f "$b" 'StartTime'
r scontrol update jobid="$b" StartTime=2001-01-01T00:00:00
r f "$b" 'Reason'
# A held job that was cancelled cannot be released, and keeps its hold's reason.
d=$(submit --hold --wrap 'true')
r scancel "$d"
r scontrol release "$d"
r f "$d" 'JobState|Reason'
# --gpu-bind and --gpu-freq as scontrol shows them.
e=$(submit --hold --gpus=1 --gpu-bind=closest --gpu-freq=low --wrap 'true')
r f "$e" 'TresBind|TresFreq|TresPerJob'
e2=$(submit --hold --gpus-per-node=1 --gpu-bind=map_gpu:0 --wrap 'true')
r f "$e2" 'TresBind|TresPerNode'
# ArrayTaskThrottle of a held array (last: Slurm gives tasks new ids only when they start, Spur at submission), then released: at most two tasks run at once.
c=$(submit --hold --array=1-4 -o /dev/null --wrap 'sleep 3')
r scontrol update jobid="$c" ArrayTaskThrottle=2
r f "$c" 'ArrayTaskThrottle|ArrayTaskId|JobState'
r squeue -h -j "$c" -o '%i %T %r'
r scontrol update jobid="$c" ArrayTaskThrottle=-1
r f "$c" 'ArrayTaskThrottle|ArrayTaskId'
r scontrol release "$c"
sleep 2
running=$(squeue -h -j "$c" -r -t R -o %i | wc -l)
echo "running tasks at once: $running"
r scontrol update jobid="$c" ArrayTaskThrottle=0
r squeue -h -j "$c" -o '%i' -t PD
scancel "$c"
r scontrol show job bogus
r scontrol show job 999999

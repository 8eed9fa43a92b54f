#!/usr/bin/env bash
. "$CASE_LIB"
h=$(hostname -s)
cleanup() {
    _cleanup_jobs
    local deadline=$((SECONDS + WAIT_LIMIT))
    until scontrol delete reservation c383 >/dev/null 2>&1; do
        ((SECONDS < deadline)) || break
        sleep 0.2
    done
}
trap cleanup EXIT
scontrol create reservation ReservationName=c383 StartTime=now+1hour Duration=10 Nodes="$h" Users=root; echo "rc=$?"
sinfo -T -h | awk '{print $1, $2, $5}'
r=$(submit -o /dev/null --reservation=c383 --wrap true)
long=$(submit -o /dev/null -t 90 --wrap 'sleep 60')
short=$(submit -o /dev/null -t 10 --wrap 'sleep 60')
wait_state "$short" RUNNING
wait_reason "$r" Reservation
wait_reason "$long" "ReqNodeNotAvail, May be reserved for other job"
squeue -h -j "$r,$long,$short" -o '%i|%T|%r|%v|%l' | sed "s/^$r|/R|/; s/^$long|/LONG|/; s/^$short|/SHORT|/" | sort
fields "$r" JobState Reason
# The job shows its reservation while it waits for it to begin.
scontrol show job "$r" | grep -c '^   Reservation='
scontrol delete reservation c383; echo "rc=$?"
scontrol show reservation c383 | grep -o 'State=[A-Z]*'

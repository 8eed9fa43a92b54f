#!/usr/bin/env bash
. "$CASE_LIB"
u=spurcase381
useradd -M -s /bin/sh "$u" 2>/dev/null
h=$(hostname -s)
cleanup() {
    _cleanup_jobs
    local deadline=$((SECONDS + WAIT_LIMIT))
    until scontrol delete reservation c381 >/dev/null 2>&1; do
        ((SECONDS < deadline)) || break
        sleep 0.2
    done
    userdel "$u" 2>/dev/null
}
trap cleanup EXIT
scontrol create reservation ReservationName=c381 StartTime=now Duration=30 Nodes="$h" Users=root; echo "rc=$?"
out=$(submit -o /dev/null --wrap 'sleep 60')
in=$(submit -o /dev/null --reservation=c381 --wrap 'sleep 60')
wait_state "$in" RUNNING
wait_reason "$out" "ReqNodeNotAvail, May be reserved for other job"
squeue -h -j "$out,$in" -o '%i|%T|%r|%v' | sed "s/^$out|/OUT|/; s/^$in|/IN|/" | sort
fields "$in" JobState Reason Reservation
fields "$out" JobState Reason
scontrol show job "$out" | grep -c '^   Reservation='
squeue -h -j "$in" -O reservation,state
# The batch script asks for the reservation too.
printf '#!/bin/sh\n#SBATCH --reservation=c381\n#SBATCH -o /dev/null\nsleep 60\n' >job.sh
d=$(submit job.sh)
wait_state "$d" RUNNING
squeue -h -j "$d" -o '%T %v'
sbatch --reservation=nosuch381 --wrap true; echo "rc=$?"
(cd /tmp && runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
    ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} \
    sbatch -o /dev/null --reservation=c381 --wrap true 2>&1); echo "rc=$?"
scontrol delete reservation c381; echo "rc=$?"

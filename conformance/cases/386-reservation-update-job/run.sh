#!/usr/bin/env bash
. "$CASE_LIB"
h=$(hostname -s)
cleanup() {
    _cleanup_jobs
    local r deadline=$((SECONDS + WAIT_LIMIT))
    for r in c386a c386b; do
        until scontrol delete reservation $r >/dev/null 2>&1; do
            ((SECONDS < deadline)) || break
            sleep 0.2
        done
    done
}
trap cleanup EXIT
scontrol create reservation ReservationName=c386a StartTime=now+1hour Duration=10 Nodes="$h" Users=root; echo "rc=$?"
scontrol create reservation ReservationName=c386b StartTime=now+3hours Duration=10 Nodes="$h" Users=nobody; echo "rc=$?"
j=$(submit -o /dev/null --hold --wrap true)
scontrol update JobId="$j" Reservation=c386a; echo "rc=$?"
squeue -h -j "$j" -o '%v'
scontrol update JobId="$j" Reservation=nosuch386 2>&1 | sed "s/$j/JOB/"; echo "rc=${PIPESTATUS[0]}"
scontrol update JobId="$j" Reservation=c386b 2>&1 | sed "s/$j/JOB/"; echo "rc=${PIPESTATUS[0]}"
squeue -h -j "$j" -o '%v'
scontrol update JobId="$j" Reservation=; echo "rc=$?"
squeue -h -j "$j" -o '%v'

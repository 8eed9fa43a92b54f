#!/usr/bin/env bash
. "$CASE_LIB"
trap '_cleanup_jobs; for r in c384a c384b; do scontrol delete reservation $r >/dev/null 2>&1; done' EXIT
h=$(hostname -s)
j=$(submit -o /dev/null -t 30 --wrap 'sleep 60')
wait_state "$j" RUNNING
scontrol create reservation ReservationName=c384a StartTime=now Duration=10 Nodes="$h" Users=root; echo "rc=$?"
scontrol create reservation ReservationName=c384a StartTime=now+10minutes Duration=10 NodeCnt=1 Users=root; echo "rc=$?"
scontrol create reservation ReservationName=c384a StartTime=now+2hours Duration=10 Nodes="$h" Users=root; echo "rc=$?"
scontrol update ReservationName=c384a StartTime=now+5minutes; echo "rc=$?"
scontrol create reservation ReservationName=c384b StartTime=now Duration=10 Nodes="$h" Users=root Flags=IGNORE_JOBS; echo "rc=$?"
scontrol show reservation c384b | grep -o 'Flags=[^ ]*'
squeue -h -j "$j" -o '%T'

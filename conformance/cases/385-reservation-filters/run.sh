#!/usr/bin/env bash
. "$CASE_LIB"
h=$(hostname -s)
cleanup() {
    _cleanup_jobs
    local deadline=$((SECONDS + WAIT_LIMIT))
    until scontrol delete reservation c385 >/dev/null 2>&1; do
        ((SECONDS < deadline)) || break
        sleep 0.2
    done
}
trap cleanup EXIT
scontrol create reservation ReservationName=c385 StartTime=now+1hour Duration=10 Nodes="$h" Users=root; echo "rc=$?"
a=$(submit -o /dev/null --reservation=c385 --wrap true)
b=$(submit -o /dev/null --hold --wrap true)
squeue -h -R c385 -o '%i %v' | sed "s/^$a /A /"
squeue -h -R nosuch385 -o '%i'; echo "rc=$?"
scancel -R nosuch385; echo "rc=$?"
scancel -R c385; echo "rc=$?"
wait_done "$a"
squeue -h -j "$b" -o '%T %r'

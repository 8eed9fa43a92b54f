#!/usr/bin/env bash
. "$CASE_LIB"
# A throwaway local user; both targets authenticate it (MUNGE or peer credentials), never believe a claimed uid.
u=spurcase320
useradd -M -s /bin/sh "$u" 2>/dev/null
trap '_cleanup_jobs; userdel "$u" 2>/dev/null' EXIT
as_user() {
    runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@" 2>&1
}
j=$(submit --wrap 'sleep 60')
as_user scancel "$j"; echo "scancel other rc=$?"
as_user scontrol hold "$j"; echo "hold other rc=$?"
as_user scontrol update jobid="$j" timelimit=5; echo "update other rc=$?"
as_user scontrol update nodename="$(hostname -s)" state=drain reason=x; echo "update node rc=$?"
squeue -h -j "$j" -o "%u %l"
mine=$(cd /tmp && as_user sbatch --parsable -o /dev/null --wrap 'sleep 60')
track "$mine"
squeue -h -j "$mine" -o "%u" | sed "s/^$u\$/USER/"
as_user scancel "$mine"; echo "scancel own rc=$?"

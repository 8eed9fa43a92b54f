#!/usr/bin/env bash
. "$CASE_LIB"
u=spurcase325
g=spurcaseacc
groupadd "$g" 2>/dev/null
useradd -M -s /bin/sh "$u" 2>/dev/null
trap '_cleanup_jobs; userdel "$u" 2>/dev/null; groupdel "$g" 2>/dev/null' EXIT
scontrol reconfigure >/dev/null 2>&1
sleep 1
as_user() {
    (cd /tmp && runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@" 2>&1)
}
for p in grp rooto; do
    h=$(as_user sbatch --parsable -o /dev/null -H --wrap true)
    track "$h"
    as_user scontrol update jobid="$h" partition="$p" | sed "s/$h/JOB/"; echo "update to $p rc=${PIPESTATUS[0]}"
    squeue -h -j "$h" -o "%P %u"
done

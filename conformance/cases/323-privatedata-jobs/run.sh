#!/usr/bin/env bash
. "$CASE_LIB"
a=spurcase323a
b=spurcase323b
useradd -M -s /bin/sh "$a" 2>/dev/null
useradd -M -s /bin/sh "$b" 2>/dev/null
trap '_cleanup_jobs; userdel "$a" 2>/dev/null; userdel "$b" 2>/dev/null' EXIT
as_user() {
    local u=$1
    shift
    (cd /tmp && runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@" 2>&1)
}
ja=$(as_user "$a" sbatch --parsable -o /dev/null -H --wrap true)
jb=$(as_user "$b" sbatch --parsable -o /dev/null -H --wrap true)
jr=$(submit -o /dev/null -H --wrap true)
track "$ja" "$jb"
echo "-- squeue as $a"
as_user "$a" squeue -h -o "%u %T"
echo "-- scontrol show job as $a"
as_user "$a" scontrol show job | grep -o 'UserId=[a-z0-9]*'
echo "-- $b's job as $a"
as_user "$a" scontrol show job "$jb"; echo "show job rc=$?"
as_user "$a" squeue -h -j "$jb" -o "%u"; echo "squeue -j rc=$?"
as_user "$a" squeue -h -u "$b" -o "%u"; echo "squeue -u rc=$?"
as_user "$a" scontrol show job "$jr"; echo "show root's job rc=$?"
echo "-- root"
squeue -h -o "%u" | sort

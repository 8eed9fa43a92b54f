#!/usr/bin/env bash
. "$CASE_LIB"
# Throwaway users: one in the group of ACCESS_CONF's partition `grp` (supplementary), one not.
g=spurcaseacc
in=spurcase322a
out=spurcase322b
groupadd "$g" 2>/dev/null
useradd -M -s /bin/sh -G "$g" "$in" 2>/dev/null
useradd -M -s /bin/sh "$out" 2>/dev/null
trap '_cleanup_jobs; userdel "$in" 2>/dev/null; userdel "$out" 2>/dev/null; groupdel "$g" 2>/dev/null' EXIT
# Slurm resolves AllowGroups when it reads its configuration (Spur at every submission, so it needs none).
scontrol reconfigure >/dev/null 2>&1
sleep 1
as_user() {
    local u=$1
    shift
    (cd /tmp && runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@" 2>&1)
}
as_user "$out" sbatch -o /dev/null -p grp --wrap true; echo "sbatch grp non-member rc=$?"
as_user "$out" srun -p grp true; echo "srun grp non-member rc=$?"
as_user "$out" salloc -p grp true; echo "salloc grp non-member rc=$?"
as_user "$out" sbatch -o /dev/null -p grp --test-only --wrap true; echo "sbatch --test-only grp non-member rc=$?"
as_user "$out" sbatch -o /dev/null -p rooto --wrap true; echo "sbatch rooto user rc=$?"
as_user "$out" srun -p rooto true; echo "srun rooto user rc=$?"
j=$(as_user "$in" sbatch --parsable -o /dev/null -p grp -H --wrap true)
echo "sbatch grp member rc=$?"
track "$j"
squeue -h -j "$j" -o "%P %u"
r=$(submit -o /dev/null -p rooto -H --wrap true)
squeue -h -j "$r" -o "%P %u"
sbatch -o /dev/null -p noroot --wrap true; echo "sbatch noroot root rc=$?"
srun -p noroot true; echo "srun noroot root rc=$?"
n=$(as_user "$out" sbatch --parsable -o /dev/null -p noroot -H --wrap true)
track "$n"
squeue -h -j "$n" -o "%P %u"
m=$(as_user "$in" sbatch --parsable -o /dev/null -H --wrap true)
track "$m"
as_user "$in" scontrol update jobid="$m" partition=grp; echo "member update to grp rc=$?"
squeue -h -j "$m" -o "%P %u"

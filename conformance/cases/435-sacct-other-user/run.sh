#!/usr/bin/env bash
. "$CASE_LIB"
# A throwaway local user; both targets authenticate it (MUNGE or peer credentials).
u=spurcase435
useradd -M -s /bin/sh "$u" 2>/dev/null
# The accounting targets enforce associations: the user needs one to submit.
sacctmgr -i add user "$u" account=root >/dev/null
trap '_cleanup_jobs; sacctmgr -i delete user "$u" >/dev/null 2>&1; userdel "$u" 2>/dev/null' EXIT
as_user() {
    (cd /tmp && runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@" 2>&1)
}
mine=$(as_user sbatch --parsable -J c435usr -o /dev/null --wrap 'true')
track "$mine"
root=$(submit -J c435root -o /dev/null --wrap 'true')
wait_done "$mine" "$root"
wait_acct "$mine" "$root"
names=c435root,c435usr
echo "default:"
as_user sacct -X -n -P -o JobName,User,State --name "$names" | sed "s/$u/USER/"
echo "-a:"
as_user sacct -X -n -P -o JobName,State -a --name "$names"
echo "-u root:"
as_user sacct -X -n -P -o JobName,State -u root --name "$names"
echo "-j:"
as_user sacct -X -n -P -o JobName,User -j "$root"

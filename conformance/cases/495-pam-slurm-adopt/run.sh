#!/usr/bin/env bash
. "$CASE_LIB"
# The modules load libslurm.so.38 from LD_LIBRARY_PATH: real libslurm against Slurm, the shim against Spur
# (targets/spur/up.sh), so pam_slurm_adopt asks slurmstepd's sockets on one side and spurd's step socket on the
# other. One node is enough: the module only ever asks about the node it runs on.
owner=spurcase495
other=spurcase495n
svc=spurcase495-$$
for u in "$owner" "$other"; do useradd -M -s /bin/sh "$u" 2>/dev/null; done
trap '_cleanup_jobs; rm -f "/etc/pam.d/$svc" "/etc/pam.d/$svc-ignore" "/etc/pam.d/$svc-slurm"; userdel "$owner" 2>/dev/null; userdel "$other" 2>/dev/null' EXIT
printf 'account required pam_slurm_adopt.so service=%s\n' "$svc" >"/etc/pam.d/$svc"
printf 'account required pam_slurm_adopt.so service=%s-ignore action_no_jobs=ignore\naccount required pam_permit.so\n' \
    "$svc" >"/etc/pam.d/$svc-ignore"
printf 'account required pam_slurm.so\n' >"/etc/pam.d/$svc-slurm"
as_user() {
    (cd /tmp && runuser -u "$1" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "${@:2}" 2>&1)
}
pam() {
    local service=$1 user=$2
    pamtester "$service" "$user" acct_mgmt 2>&1 | sed "s/$other/OTHER/g; s/$owner/OWNER/g; s/uid=[0-9]*/uid=N/g"
    echo "rc=${PIPESTATUS[0]}"
}
echo "== no job on the node"
pam "$svc" "$owner"
pam "$svc-slurm" "$owner"
id=$(as_user "$owner" sbatch --parsable -o /dev/null --wrap 'sleep 60')
track "$id"
wait_state "$id" RUNNING
# The extern step exists once the job runs (both: at allocation).
squeue -s -h -j "$id" -o '%i' | sed "s/^$id/J/" | sort
echo "== the job's owner"
# The step daemons' sockets may appear a moment after the job is seen running (slurmstepd, like spurd's cgroup, is
# set up as the job starts): the owner is let in within a few seconds.
deadline=$((SECONDS + 15))
until pamtester "$svc" "$owner" acct_mgmt >/dev/null 2>&1 || ((SECONDS > deadline)); do sleep 0.3; done
pam "$svc" "$owner"
echo "== another user"
pam "$svc" "$other"
pam "$svc-ignore" "$other"
echo "== root is ignored"
pam "$svc" root
echo "== pam_slurm"
pam "$svc-slurm" "$owner"
pam "$svc-slurm" "$other"

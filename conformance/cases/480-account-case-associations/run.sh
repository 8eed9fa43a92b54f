#!/usr/bin/env bash
. "$CASE_LIB"
u=spurcase480
useradd -M -s /bin/sh "$u" 2>/dev/null
cleanup() {
    _cleanup_jobs
    sacctmgr -i delete user "$u" >/dev/null 2>&1
    sacctmgr -i delete account c480_mixed >/dev/null 2>&1
    sacctmgr -i delete qos c480_hi >/dev/null 2>&1
    userdel "$u" 2>/dev/null
}
trap cleanup EXIT
as_user() {
    (cd /tmp && runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@" 2>&1)
}
echo "add account: $(sacctmgr -i add account C480_Mixed description=d organization=o >/dev/null; echo rc=$?)"
echo "add qos: $(sacctmgr -i add qos C480_Hi >/dev/null; echo rc=$?)"
sacctmgr -n -P show qos c480_hi format=name
echo "add user: $(sacctmgr -i add user "$u" account=C480_MIXED >/dev/null; echo rc=$?)"
sacctmgr -n -P show account c480_mixed format=account,description
sacctmgr -n -P show assoc where user="$u" format=account,user
for asked in C480_Mixed c480_mixed; do
    j=$(as_user sbatch --parsable -o /dev/null --hold --account="$asked" --wrap true)
    if [[ $j =~ ^[0-9]+$ ]]; then
        track "$j"
        echo "$asked: $(squeue -h -j "$j" -o %a)"
    else
        echo "$asked: $j"
    fi
done
echo "show account upper: $(sacctmgr -n -P show account C480_MIXED format=account)"
echo "modify user qos: $(sacctmgr -i modify user "$u" set qos+=C480_HI >/dev/null; echo rc=$?)"
sacctmgr -n -P show assoc where user="$u" account=C480_MIXED format=account,user,qos

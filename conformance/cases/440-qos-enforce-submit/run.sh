#!/usr/bin/env bash
. "$CASE_LIB"
u=spurcase440
useradd -M -s /bin/sh "$u" 2>/dev/null
cleanup() {
    _cleanup_jobs
    sacctmgr -i delete user "$u" >/dev/null 2>&1
    sacctmgr -i delete account c440a,c440b >/dev/null 2>&1
    sacctmgr -i delete qos c440hi >/dev/null 2>&1
    userdel "$u" 2>/dev/null
}
trap cleanup EXIT
as_user() {
    (cd /tmp && runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@" 2>&1)
}
try() { echo "\$ $*"; as_user "$@" | sed 's/[0-9][0-9]*$/N/'; }
try sbatch -o /dev/null --hold --wrap true
sacctmgr -i add qos c440hi priority=10 >/dev/null
sacctmgr -i add account c440a,c440b >/dev/null
sacctmgr -i add user "$u" account=c440a >/dev/null
try sbatch -o /dev/null --qos=c440hi --wrap true
try sbatch -o /dev/null --qos=c440nosuch --wrap true
try sbatch -o /dev/null --account=c440b --wrap true
try sbatch -o /dev/null --account=c440nosuch --wrap true
try srun --qos=c440hi true
try salloc --qos=c440hi true
plain=$(as_user sbatch --parsable -o /dev/null --hold --wrap true)
track "$plain"
sacctmgr -i modify user "$u" set qos+=c440hi defaultqos=c440hi >/dev/null
hi=$(as_user sbatch --parsable -o /dev/null --hold --wrap true)
track "$hi"
norm=$(as_user sbatch --parsable -o /dev/null --hold --qos=normal --wrap true)
track "$norm"
squeue -h -j "$plain,$hi,$norm" -o "%q %a" --sort=i
for j in "$plain" "$hi" "$norm"; do fields "$j" QOS Account; done

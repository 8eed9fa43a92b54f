#!/usr/bin/env bash
# libspur_compat/tests/c/job_modify_c.c, built against <slurm/slurmdb.h> with -lslurm.
. "$CASE_LIB"
u=spurcase501
useradd -M -s /bin/sh "$u" 2>/dev/null
sacctmgr -i add user "$u" account=root >/dev/null
# The other user runs a copy it can reach, under a fixed name (libslurm's log lines carry it).
dir=$(mktemp -d /tmp/c501.XXXXXX)
chmod 755 "$dir"
bin=$dir/job_modify_c
trap '_cleanup_jobs; sacctmgr -i delete user "$u" >/dev/null 2>&1; userdel "$u" 2>/dev/null; rm -rf "$dir"' EXIT
as_user() {
    (cd /tmp && runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${LD_LIBRARY_PATH:+LD_LIBRARY_PATH="$LD_LIBRARY_PATH"} \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@")
}
src=$CASE_DIR/../../../libspur_compat/tests/c/job_modify_c.c
gcc -o "$bin" "$src" -lslurm || exit 1
chmod 755 "$bin"
job=$(submit -J c501 -o /dev/null --wrap 'true')
wait_done "$job"
wait_acct "$job"
"$bin" owner "$job" 2>&1
echo "rc=$?"
as_user "$bin" intruder "$job" 2>&1
echo "rc=$?"

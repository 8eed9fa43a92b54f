#!/usr/bin/env bash
. "$CASE_LIB"
# Issue 29: each of these reached Spur's controller unchecked (a user's job at top priority, a task count whose CPU
# total wrapped to 0, a node list expanded to millions of names under the state's lock).
u=spurcase477
useradd -M -s /bin/sh "$u" 2>/dev/null
trap '_cleanup_jobs; userdel "$u" 2>/dev/null' EXIT
as_user() {
    (cd /tmp && runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@" 2>&1)
}
echo "== negative nice as a user"
as_user sbatch -o /dev/null --nice=-100000 --wrap true; echo "rc=$?"
as_user sbatch -o /dev/null --nice=-1 --wrap true; echo "rc=$?"
echo "== products that overflow 32 and 64 bits"
as_user sbatch -o /dev/null -n 1073741824 -c 4 --wrap true; echo "rc=$?"
as_user sbatch -o /dev/null --mem-per-cpu=9007199254740991 -c 2 --wrap true; echo "rc=$?"
echo "== node lists beyond any cluster"
as_user sbatch -o /dev/null -x "x[1-60000],y[1-60000]" --wrap true; echo "rc=$?"
as_user sbatch -o /dev/null -w "x[1-60000],y[1-60000]" --wrap true; echo "rc=$?"
echo "== nothing was queued"
squeue -h -u "$u" | wc -l
echo "== a user's positive nice and root's negative one"
mine=$(as_user sbatch --parsable -H -o /dev/null --nice=50 --wrap true)
root=$(submit -H --nice=-50 --wrap true)
track "$mine" "$root"
squeue -h -j "$mine,$root" -o "%y" -S i

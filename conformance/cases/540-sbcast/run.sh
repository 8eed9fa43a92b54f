#!/usr/bin/env bash
# sbcast's files are opened and written by the job's owner on each node (slurmd's open as that user; Spur's
# `spurstepd --bcast` drops to that user first): /root stays out of reach and the copies belong to the owner.
. "$CASE_LIB"
u=spurcase540
other=spurcase540b
useradd -M -s /bin/sh "$u" 2>/dev/null
useradd -M -s /bin/sh "$other" 2>/dev/null
d=$(mktemp -d /tmp/c540.XXXXXX)
cleanup() {
    _cleanup_jobs
    rm -rf -- "$d"
    userdel "$u" 2>/dev/null
    userdel "$other" 2>/dev/null
}
trap cleanup EXIT
as() {
    local who=$1
    shift
    (cd "$d" && runuser -u "$who" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@" 2>&1)
}
chmod 755 "$d"
printf 'hello\n' >"$d/src.txt"
printf 'readable\n' >"$d/public.txt"
: >"$d/empty.txt"
chown -R "$u" "$d"
chmod 640 "$d/src.txt"
chmod 644 "$d/public.txt"
touch -d '2020-01-02 03:04:05 UTC' "$d/src.txt"
cat >"$d/job.sh" <<'SCRIPT'
#!/bin/bash
exec 2>&1
cd "$D"
sbcast src.txt "$D/dest"; echo "copy rc=$?"; stat -c '%A %U %s' "$D/dest"
sbcast src.txt "$D/dest"; echo "again rc=$?"
sbcast -f src.txt "$D/dest"; echo "force rc=$?"
sbcast -p -f src.txt "$D/dest.p"; echo "preserve rc=$?"; stat -c '%a %Y' "$D/dest.p"
sbcast nosuch "$D/x"; echo "missing rc=$?"
sbcast empty.txt "$D/empty.out"; echo "empty rc=$?"; ls "$D/empty.out" >/dev/null 2>&1; echo "empty exists=$?"
sbcast src.txt rel.txt; echo "relative rc=$?"; stat -c '%A %s' rel.txt
sbcast src.txt "$D/"; echo "directory rc=$?"
sbcast src.txt /nonexistent-c540/x; echo "no dir rc=$?"
sbcast src.txt /root/c540-forbidden; echo "root rc=$?"
sbcast -C src.txt "$D/c"; echo "compress rc=$?"
sbcast -Cfoo src.txt "$D/c2"; echo "compress foo rc=$?"
sbcast -j 999999 src.txt "$D/j"; echo "unknown job rc=$?"
sbcast one; echo "one name rc=$?"
sbcast --bogus a b; echo "bogus rc=$?"
sbcast -s 1k -t 5 -F 2 src.txt "$D/s"; echo "size rc=$?"; cat "$D/s"
sbcast -s 1x src.txt "$D/s2"; echo "bad size rc=$?"
(unset SLURM_JOB_ID; sbcast src.txt "$D/y"; echo "no job rc=$?")
sbcast --usage; echo "usage rc=$?"
SCRIPT
chmod 755 "$d/job.sh"
j=$(as "$u" sbatch --parsable -o "$d/out.txt" --export=ALL,D="$d" "$d/job.sh")
track "$j"
wait_done "$j"
sed "s/$j/JOB/g" "$d/out.txt"
ls -l /root/c540-forbidden 2>&1 | sed 's/.*No such.*/not written/'
# Another user's running job, and a pending one.
r=$(as "$u" sbatch --parsable -o /dev/null --wrap 'sleep 30')
track "$r"
wait_state "$r" RUNNING
h=$(as "$u" sbatch --parsable -o /dev/null --hold --wrap true)
track "$h"
as "$other" sbcast -j "$r" "$d/public.txt" /tmp/c540-other | sed "s/$r/RUNNING_JOB/"
echo "other user rc=${PIPESTATUS[0]}"
as "$u" sbcast -j "$h" "$d/src.txt" "$d/held" | sed "s/$h/HELD_JOB/"
echo "held rc=${PIPESTATUS[0]}"
as "$u" sbcast -j "$r" "$d/src.txt" "$d/from-outside"
echo "from outside rc=$?"; stat -c '%A %U' "$d/from-outside"
scancel "$r" "$h"
sbcast --help
echo "help rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
# Throwaway local users; the mode's slurm.conf has SchedulerParameters=enable_user_top.
u=spurcase372a
u2=spurcase372b
useradd -M -s /bin/sh "$u" 2>/dev/null
useradd -M -s /bin/sh "$u2" 2>/dev/null
trap '_cleanup_jobs; userdel "$u" 2>/dev/null; userdel "$u2" 2>/dev/null' EXIT
as() {
    local who=$1
    shift
    (cd /tmp && runuser -u "$who" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@" 2>&1)
}
sub() {
    local id
    id=$(as "$1" sbatch --parsable -o /dev/null "${@:2}" --wrap true)
    track "$id"
    echo "$id"
}
# The node's two CPUs are taken, so everything after waits.
# In `high`, the top tier, so that no job of these cases preempts it.
blocker=$(submit -p high -n2 -t 5 --wrap "sleep 300")
wait_state "$blocker" RUNNING
j1=$(sub "$u" -n2)
j2=$(sub "$u" -n1)
j3=$(sub "$u" -n1 --nice=200)
j4=$(sub "$u" -n1 --nice=500)
j5=$(sub "$u" -n1 --nice=1000)
hi=$(sub "$u" -n1 -p high)
held=$(sub "$u" -n1 -H)
other=$(sub "$u2" -n1 --nice=300)
all="$j1,$j2,$j3,$j4,$j5,$hi,$held,$other"
show() { squeue -j "$all" -o "%.18i %.10Q %.6y %.9P %.8T" -S i; }
show
echo "== user tops one job"
as "$u" scontrol top "$j4"; echo "rc=$?"
show
echo "== user tops two, in list order"
as "$u" scontrol top "$j5,$j3"; echo "rc=$?"
show
echo "== root tops the user's job"
scontrol top "$j1"; echo "rc=$?"
show
echo "== errors"
as "$u" scontrol top "$other"; echo "rc=$?"
as "$u" scontrol top "$held"; echo "rc=$?"
scontrol top "$blocker"; echo "rc=$?"
scontrol top "$j2,999999"; echo "rc=$?"
scontrol top abc; echo "rc=$?"
scontrol top; echo "rc=$?"
echo "== a job alone in its partition keeps its priority"
scontrol top "$hi"; echo "rc=$?"
show

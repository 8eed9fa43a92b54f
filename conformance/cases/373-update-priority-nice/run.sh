#!/usr/bin/env bash
. "$CASE_LIB"
u=spurcase373a
u2=spurcase373b
useradd -M -s /bin/sh "$u" 2>/dev/null
useradd -M -s /bin/sh "$u2" 2>/dev/null
trap '_cleanup_jobs; userdel "$u" 2>/dev/null; userdel "$u2" 2>/dev/null' EXIT
as() {
    local who=$1
    shift
    (cd /tmp && runuser -u "$who" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@" 2>&1)
}
# In `high`, the top tier, so that no job of these cases preempts it.
blocker=$(submit -p high -n2 -t 5 --wrap "sleep 300")
wait_state "$blocker" RUNNING
j1=$(as "$u" sbatch --parsable -o /dev/null -n1 --wrap true)
j2=$(as "$u" sbatch --parsable -o /dev/null -n1 --wrap true)
track "$j1" "$j2"
show() { squeue -j "$j1,$j2" -o "%.18i %.10Q %.6y" -S i; }
show
echo "== as the owner"
as "$u" scontrol update jobid="$j1" priority=99999; echo "rc=$?"
as "$u" scontrol update jobid="$j1" priority=100; echo "rc=$?"
as "$u" scontrol update jobid="$j1" nice=-10; echo "rc=$?"
as "$u" scontrol update jobid="$j1" nice=10; echo "rc=$?"
echo "== as another user"
as "$u2" scontrol update jobid="$j1" nice=20; echo "rc=$?"
show
echo "== as root"
scontrol update jobid="$j2" priority=7777; echo "rc=$?"
scontrol update jobid="$j1" nice=-50; echo "rc=$?"
show
sprio -l -j "$j1,$j2"
sprio -n -j "$j2" -o "%.15i %.10y %a %j %N"
echo "== nice leaves a fixed priority alone; priority 0 holds"
scontrol update jobid="$j2" nice=5; echo "rc=$?"
show
scontrol update jobid="$j2" priority=0; echo "rc=$?"
show
squeue -h -j "$j2" -o "%r" 
sprio -j "$j1,$j2" -o "%.15i %.10Y %N"

#!/usr/bin/env bash
. "$CASE_LIB"
u=spurcase374
useradd -M -s /bin/sh "$u" 2>/dev/null
trap '_cleanup_jobs; userdel "$u" 2>/dev/null' EXIT
as() {
    (cd /tmp && runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@" 2>&1)
}
# The node's two CPUs are taken, so the user's jobs wait.
blocker=$(submit -n2 -t 5 --wrap "sleep 300")
wait_state "$blocker" RUNNING
j1=$(as sbatch --parsable -o /dev/null --wrap true)
j2=$(as sbatch --parsable -o /dev/null --wrap true)
j3=$(as sbatch --parsable -o /dev/null --wrap true)
track "$j1" "$j2" "$j3"
show() { squeue -j "$j1,$j2,$j3" -o "%.18i %.6y %.8T" -S i; }
show
as scontrol top "$j3"; echo "rc=$?"
scontrol top "$j3"; echo "rc=$?"
show

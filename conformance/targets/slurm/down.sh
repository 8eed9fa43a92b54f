#!/usr/bin/env bash
# Tear down a cluster made by up.sh: cancel its jobs, stop the daemons it
# started (found through the PID files in the run directory), stop munged only
# if up.sh started it, and remove the run directory. Idempotent: a missing run
# directory is not an error. Prints `unset` lines for `eval "$(down.sh)"`.
# A multi-node cluster (up.sh --nodes N) also loses its network namespaces,
# bridge, veths and /etc/hosts lines (found by the run directory's hash, so
# also after the run directory is gone).
#
#   conformance/targets/slurm/down.sh [RUNDIR]
#
# RUNDIR defaults to $RUNDIR, then /tmp/spur-slurm. KEEP_MUNGED=1 leaves
# munged running even if up.sh started it.
set -euo pipefail
PROG=down.sh
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# shellcheck source-path=SCRIPTDIR source=../multinode.sh
source "$SCRIPT_DIR/../multinode.sh"
# shellcheck source-path=SCRIPTDIR source=dbd.sh
source "$SCRIPT_DIR/dbd.sh"

case ${1:-} in
-h | --help)
    echo "usage: $PROG [RUNDIR]   (default: \$RUNDIR or $DEFAULT_RUNDIR)" >&2
    exit 0
    ;;
-*) die "unknown option '$1'" ;;
esac
(($# <= 1)) || die "usage: $PROG [RUNDIR]"

[[ $(id -u) -eq 0 ]] || die "must run as root"
RUNDIR=$(resolve_rundir "${1:-}")
CONF=$RUNDIR/slurm.conf
mn_init "$RUNDIR"

print_unsets() {
    echo "unset SLURM_CONF RUNDIR"
}

if [[ ! -e $RUNDIR ]]; then
    mn_net_down
    log "nothing to do: $RUNDIR does not exist"
    print_unsets
    exit 0
fi
[[ -f $RUNDIR/$MARKER ]] || die "$RUNDIR was not made by up.sh (no $MARKER); not touching it"

# slurmd names its PID file after the node; read the names from the config
# rather than hostname, in case the host was renamed since up.sh ran.
mapfile -t NODES < <(sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' "$CONF" 2>/dev/null)
((${#NODES[@]})) || NODES=("$(node_name)")

# Jobs left running would leave slurmstepd and their tasks behind once slurmd
# is gone; cancel them while the controller can still do it.
cancel_jobs() {
    local jobs
    live_pid_from "$RUNDIR/slurmctld.pid" slurmctld >/dev/null || return 0
    jobs=$(SLURM_CONF=$CONF timeout 10 squeue -h -o %i -t all 2>/dev/null || true)
    # One id per line; a pattern substitution over the list took bash 15 s with 100,000 jobs.
    [[ $jobs == *[0-9]* ]] || return 0
    # shellcheck disable=SC2086
    SLURM_CONF=$CONF timeout 10 scancel $jobs 2>/dev/null || true
}

# slurmstepd processes of this cluster hold its slurmd log or spool sockets
# open, which tells them apart from those of another cluster on this host.
our_stepds() {
    local p pid fd
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        pid_is "$pid" slurmstepd || continue
        for fd in "$p"/fd/*; do
            if [[ $(readlink "$fd" 2>/dev/null) == "$RUNDIR"/* ]]; then
                echo "$pid"
                break
            fi
        done
    done
}

wait_stepds() {
    local i
    for ((i = 0; i < 100; i++)); do
        [[ -z $(our_stepds) ]] && return 0
        sleep 0.1
    done
}

stop_from_pidfile() {
    local file=$1 name=$2 pid
    if pid=$(live_pid_from "$file" "$name"); then
        log "stopping $name ($pid)"
        stop_pid "$pid" "$name" 10
    fi
}

# Slurm daemons still alive at this point belong to someone else on this
# host (ours are stopped by then) and may authenticate through our munged.
foreign_slurm_daemons() {
    local p
    for p in /proc/[0-9]*; do
        case $(cat "$p/comm" 2>/dev/null) in
        slurmctld | slurmd | slurmdbd | slurmrestd | slurmstepd) echo "${p#/proc/}" ;;
        esac
    done
}

stop_munged_if_ours() {
    local pid others
    [[ -f $RUNDIR/munged.started ]] || return 0
    if pid=$(live_pid_from "$RUNDIR/munged.started" munged); then
        if [[ ${KEEP_MUNGED:-0} == 1 ]]; then
            log "leaving munged ($pid) running (KEEP_MUNGED=1)"
            return 0
        fi
        others=$(foreign_slurm_daemons | tr '\n' ' ')
        if [[ -n ${others// /} ]]; then
            log "leaving munged ($pid) running: other Slurm daemons use it (PIDs $others)"
            return 0
        fi
        log "stopping munged ($pid), started by up.sh"
        stop_pid "$pid" munged 5
    fi
}

cancel_jobs
[[ -z $(our_stepds) ]] || wait_stepds
for node in "${NODES[@]}"; do
    stop_from_pidfile "$RUNDIR/slurmd-$node.pid" slurmd
done
stop_from_pidfile "$RUNDIR/slurmctld.pid" slurmctld
dbd_down
for pid in $(our_stepds); do
    log "stopping leftover slurmstepd ($pid)"
    stop_pid "$pid" slurmstepd 5
done
# task/cgroup runs leave the nodes' top cgroup directories (slurm_<node>, empty): removed here. One that another
# cluster on this host still uses is not empty, and rmdir leaves it alone.
for node in "${NODES[@]}"; do
    rmdir /sys/fs/cgroup/*/slurm_"$node" /sys/fs/cgroup/slurm_"$node" 2>/dev/null || true
done
mn_net_down
stop_munged_if_ours
rm -rf -- "$RUNDIR"
log "removed $RUNDIR"
print_unsets

#!/usr/bin/env bash
# Tear down a Spur cluster made by up.sh: cancel its jobs, stop spurd and spurctld through their PID files,
# stop any leftover spurstepd of this run directory, remove the run directory. Idempotent. Prints `unset` lines.
# A multi-node cluster (up.sh --nodes N) also loses its network namespaces, bridge, veths and /etc/hosts lines
# (found by the run directory's hash, so also after the run directory is gone).
#
#   conformance/targets/spur/down.sh [RUNDIR]     (default: $RUNDIR, then /tmp/spur-spur)
set -euo pipefail
PROG=down.sh
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# shellcheck source-path=SCRIPTDIR source=../multinode.sh
source "$SCRIPT_DIR/../multinode.sh"

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

if [[ ! -e $RUNDIR ]]; then
    mn_net_down
    log "nothing to do: $RUNDIR does not exist"
    echo "unset SLURM_CONF RUNDIR"
    exit 0
fi
[[ -f $RUNDIR/$MARKER ]] || die "$RUNDIR was not made by up.sh (no $MARKER); not touching it"

mapfile -t NODES < <(sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' "$CONF" 2>/dev/null)
((${#NODES[@]})) || NODES=("$(node_name)")

cancel_jobs() {
    local jobs
    spur_pid "$RUNDIR/spurctld.pid" spurctld >/dev/null || return 0
    [[ -x $RUNDIR/bin/squeue ]] || return 0
    jobs=$(SLURM_CONF=$CONF SPUR_LOCAL_SOCKET=$RUNDIR/spurctld.sock timeout 10 "$RUNDIR/bin/squeue" -h -o %i 2>/dev/null || true)
    # One id per line; a pattern substitution over the list took bash 15 s with 100,000 jobs.
    [[ $jobs == *[0-9]* ]] || return 0
    # shellcheck disable=SC2086
    SLURM_CONF=$CONF SPUR_LOCAL_SOCKET=$RUNDIR/spurctld.sock timeout 10 "$RUNDIR/bin/scancel" $jobs >/dev/null 2>&1 || true
}

# spurstepd processes of this cluster hold files of its run directory (spool, logs) open.
# spurd's fork server (`spurstepd --fork-server`) holds spurd's log open and ends with spurd: it supervises no job.
# A supervisor it forked may keep that command line (no CAP_SYS_RESOURCE to retitle itself), but works in its job
# directory.
is_fork_server() {
    local p=$1
    [[ $(tr '\0' ' ' <"$p/cmdline" 2>/dev/null) == *" --fork-server "* ]] || return 1
    [[ $(readlink "$p/cwd" 2>/dev/null) != "$RUNDIR"/* ]]
}

our_stepds() {
    local p pid fd
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        pid_is "$pid" spurstepd || continue
        is_fork_server "$p" && continue
        for fd in "$p"/fd/*; do
            if [[ $(readlink "$fd" 2>/dev/null) == "$RUNDIR"/* ]]; then
                echo "$pid"
                break
            fi
        done
    done
}

stop_from_pidfile() {
    local file=$1 name=$2 pid
    if pid=$(spur_pid "$file" "$name"); then
        log "stopping $name ($pid)"
        stop_pid "$pid" "$name" 10
    fi
}

cancel_jobs
for ((i = 0; i < 50; i++)); do
    [[ -z $(our_stepds) ]] && break
    sleep 0.1
done
for node in "${NODES[@]}"; do
    stop_from_pidfile "$RUNDIR/spurd-$node.pid" spurd
done
stop_from_pidfile "$RUNDIR/spurctld.pid" spurctld
for pid in $(our_stepds); do
    log "stopping leftover spurstepd ($pid)"
    stop_pid "$pid" spurstepd 5
done
# task/cgroup runs leave the nodes' top cgroup directories (spur_<node>, empty): removed here. One that another
# cluster on this host still uses is not empty, and rmdir leaves it alone.
for node in "${NODES[@]}"; do
    rmdir /sys/fs/cgroup/*/spur_"$node" /sys/fs/cgroup/spur_"$node" 2>/dev/null || true
done
mn_net_down
rm -rf -- "$RUNDIR"
log "removed $RUNDIR"
echo "unset SLURM_CONF RUNDIR"

#!/usr/bin/env bash
# Bring up a single-node Slurm 22.05 cluster (slurmctld + slurmd, munge auth,
# 4 fake a100 GPUs) in a run directory, without systemd. Prints `export` lines
# on stdout, so the usual call is:
#
#   eval "$(conformance/targets/slurm/up.sh [--install] [--nodes N] [RUNDIR])"
#
# With --nodes N (or SPUR_CONF_NODES=N) the cluster has N nodes n1..nN, each
# a network namespace with its own address and host name (see
# ../multinode.sh); without it, one node named after this host, as always.
#
# Run as root. RUNDIR defaults to $RUNDIR, then /tmp/spur-slurm. If a healthy
# cluster already runs there, only the export lines are printed again.
#
# Environment:
#   RUNDIR              run directory when none is given as argument
#   SLURM_UP_TIMEOUT    seconds to wait for the node to become idle (60)
#   SLURMCTLD_PORT      slurmctld port; default 6817, or the next free pair
#   SLURMD_PORT         slurmd port; default SLURMCTLD_PORT + 1
#   SPUR_CONF_NODES     node count when --nodes is not given (multi-node mode)
#   SLURM_CONF_EXTRA    lines appended to the rendered slurm.conf (the
#                       conformance runner sets FirstJobId this way, for
#                       both targets alike)
#   SLURM_TOPOLOGY_CONF the topology.conf to render instead of conf/topology.conf
#   SLURMDBD_PORT, SLURMDB_MYSQL_PORT
#                       slurmdbd's port (6819) and its MariaDB's (6820, on
#                       127.0.0.1), used when the extra lines set
#                       AccountingStorageType=accounting_storage/slurmdbd
#                       (see dbd.sh)
set -euo pipefail
PROG=up.sh
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# shellcheck source-path=SCRIPTDIR source=../multinode.sh
source "$SCRIPT_DIR/../multinode.sh"
# shellcheck source-path=SCRIPTDIR source=dbd.sh
source "$SCRIPT_DIR/dbd.sh"

PACKAGES=(slurm-wlm slurmctld slurmd slurm-client munge)
# The reference cluster also accepted JWT (for slurmrestd). The plugin is
# installed with --install but not required: without it the AuthAlt lines
# are left out of slurm.conf, since slurmctld refuses to start otherwise.
# slurmrestd is run by the REST cases (201-209), which fail without it.
OPTIONAL_PACKAGES=(slurm-wlm-jwt-plugin slurmrestd)

usage() {
    cat >&2 <<EOF
usage: $PROG [--install] [--nodes N] [RUNDIR]
  --install   apt-get install the Slurm and munge packages if missing
  --nodes N   N nodes n1..nN, one network namespace each (default: one node, this host)
  RUNDIR      run directory (default: \$RUNDIR or $DEFAULT_RUNDIR)
Prints export lines: eval "\$($PROG)"
EOF
}

INSTALL=0
ARG_RUNDIR=
MN_NODES=${SPUR_CONF_NODES:-}
while (($#)); do
    case $1 in
    --install) INSTALL=1 ;;
    --nodes)
        (($# >= 2)) || { usage; die "--nodes needs a count"; }
        MN_NODES=$2
        shift
        ;;
    --nodes=*) MN_NODES=${1#--nodes=} ;;
    -h | --help) usage; exit 0 ;;
    -*) usage; die "unknown option '$1'" ;;
    *)
        [[ -z $ARG_RUNDIR ]] || { usage; die "more than one run directory given"; }
        ARG_RUNDIR=$1
        ;;
    esac
    shift
done

[[ $(id -u) -eq 0 ]] || die "must run as root (slurmd and munged need it)"
RUNDIR=$(resolve_rundir "$ARG_RUNDIR")
NODE=$(node_name)
mn_init "$RUNDIR"
if [[ -n $MN_NODES ]]; then
    mn_set_count "$MN_NODES"
    mapfile -t NODES < <(mn_node_names)
else
    NODES=("$NODE")
fi
CONF=$RUNDIR/slurm.conf
TIMEOUT=${SLURM_UP_TIMEOUT:-60}
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "SLURM_UP_TIMEOUT must be a number of seconds"

missing_packages() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
    done
}

ensure_packages() {
    local missing
    [[ ${SLURM_CONF_EXTRA:-} != *accounting_storage/slurmdbd* ]] || PACKAGES+=("${DBD_PACKAGES[@]}")
    missing=$(missing_packages "${PACKAGES[@]}" | tr '\n' ' ')
    if ((!INSTALL)); then
        [[ -z ${missing// /} ]] || die "missing packages: $missing(rerun with --install)"
        return 0
    fi
    missing+=$(missing_packages "${OPTIONAL_PACKAGES[@]}" | tr '\n' ' ')
    [[ -n ${missing// /} ]] || return 0
    log "installing $missing"
    # Debian's maintainer scripts try to start the daemons; without systemd
    # that only prints a harmless policy-rc.d refusal.
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y \
        --no-install-recommends $missing >&2 ||
        die "apt-get install failed"
}

print_exports() {
    printf 'export RUNDIR=%q\n' "$RUNDIR"
    printf 'export SLURM_CONF=%q\n' "$CONF"
    # The daemons live in /usr/sbin, which a non-login root shell may lack.
    case ":$PATH:" in
    *:/usr/sbin:*) ;;
    *) printf 'export PATH=%q\n' "$PATH:/usr/sbin" ;;
    esac
}

# Node state as sinfo reports it, or nothing if slurmctld does not answer.
node_state() {
    SLURM_CONF=$CONF timeout 5 sinfo -h -n "$1" -o %T 2>/dev/null | head -n1 || true
}

# The nodes slurm.conf names, one per line (what down.sh also reads).
conf_nodes() {
    sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' "$CONF" 2>/dev/null
}

already_up() {
    [[ -f $RUNDIR/$MARKER && -f $CONF ]] || return 1
    live_pid_from "$RUNDIR/slurmctld.pid" slurmctld >/dev/null || return 1
    # A cluster of another shape (node count) is restarted as asked.
    [[ $(conf_nodes) == "$(printf '%s\n' "${NODES[@]}")" ]] || return 1
    local node state
    for node in "${NODES[@]}"; do
        live_pid_from "$RUNDIR/slurmd-$node.pid" slurmd >/dev/null || return 1
    done
    # Whatever state the node is in (a test may have drained it), a cluster
    # that answers is left alone rather than restarted.
    state=$(node_state "${NODES[0]}")
    [[ -n $state ]] || return 1
    [[ $state == idle ]] || log "node ${NODES[0]} is '$state'"
}

ensure_hostname_resolves() {
    getent hosts "$NODE" >/dev/null && return 0
    log "adding '$NODE' to /etc/hosts (slurmd must resolve its own name)"
    printf '127.0.0.1 %s\n' "$NODE" >>/etc/hosts
}

munge_works() { munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; }

ensure_munge_key() {
    local key=/etc/munge/munge.key
    [[ -s $key ]] && return 0
    log "creating munge key $key"
    install -d -o munge -g munge -m 0700 /etc/munge
    if command -v mungekey >/dev/null; then
        runuser -u munge -- mungekey --create --keyfile="$key"
    else
        dd if=/dev/urandom of="$key" bs=1024 count=1 status=none
    fi
    chown munge:munge "$key"
    chmod 0400 "$key"
}

ensure_munged() {
    if [[ -n ${OUR_MUNGED:-} ]] && pid_is "$OUR_MUNGED" munged; then
        printf '%s\n' "$OUR_MUNGED" >"$RUNDIR/munged.started"
        munge_works && return 0
    fi
    if munge_works; then
        log "munged already running, leaving it alone"
        return 0
    fi
    ensure_munge_key
    install -d -o munge -g munge -m 0755 /run/munge
    # munged refuses to run as root; it daemonizes and writes its PID file.
    runuser -u munge -- /usr/sbin/munged || die "munged failed to start"
    local i pid
    for ((i = 0; i < 50; i++)); do
        munge_works && break
        sleep 0.1
    done
    munge_works || die "munged started but credentials do not verify"
    pid=$(live_pid_from /run/munge/munged.pid munged) || die "munged PID file missing"
    # down.sh stops munged only when this file says we started it.
    printf '%s\n' "$pid" >"$RUNDIR/munged.started"
    log "started munged ($pid)"
}

port_busy() { [[ -n $(ss -Htln "sport = :$1" 2>/dev/null) ]]; }

choose_ports() {
    if [[ -n ${SLURMCTLD_PORT:-} ]]; then
        CTLD_PORT=$SLURMCTLD_PORT
        SLURMD_PORT=${SLURMD_PORT:-$((CTLD_PORT + 1))}
        ! port_busy "$CTLD_PORT" || die "port $CTLD_PORT (SLURMCTLD_PORT) is in use"
        ! port_busy "$SLURMD_PORT" || die "port $SLURMD_PORT (SLURMD_PORT) is in use"
        return 0
    fi
    # Another cluster on this host (another run directory) may hold the
    # defaults; take the next free pair rather than fail.
    CTLD_PORT=6817
    while port_busy "$CTLD_PORT" || port_busy "$((CTLD_PORT + 1))"; do
        CTLD_PORT=$((CTLD_PORT + 2))
        ((CTLD_PORT < 6917)) || die "no free port pair in 6817-6916"
    done
    SLURMD_PORT=${SLURMD_PORT:-$((CTLD_PORT + 1))}
    [[ $CTLD_PORT == 6817 ]] || log "default ports busy, using $CTLD_PORT/$SLURMD_PORT"
}

# Node shape of the reference cluster, shrunk if this machine is smaller:
# a node configured larger than its hardware comes up drained.
choose_shape() {
    local hw hw_cpus hw_mem
    CPUS=2 MEM=23593
    hw=$(slurmd -C 2>/dev/null | head -n1)
    hw_cpus=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$hw")
    hw_mem=$(sed -n 's/.* RealMemory=\([0-9]*\).*/\1/p' <<<"$hw")
    if [[ -n $hw_cpus && $hw_cpus -lt $CPUS ]]; then CPUS=$hw_cpus; fi
    if [[ -n $hw_mem && $hw_mem -lt $MEM ]]; then MEM=$hw_mem; fi
    CORES=$CPUS
}

have_jwt_plugin() { compgen -G '/usr/lib/*/slurm-wlm/auth_jwt.so' >/dev/null; }

render() {
    local src=$1 dst=$2
    local -a script=(
        -e "s|@RUNDIR@|$RUNDIR|g" -e "s|@NODE@|$NODE|g"
        -e "s|@CTLD_PORT@|$CTLD_PORT|g" -e "s|@SLURMD_PORT@|$SLURMD_PORT|g"
        -e "s|@CPUS@|$CPUS|g" -e "s|@CORES@|$CORES|g" -e "s|@MEM@|$MEM|g"
    )
    have_jwt_plugin || script+=(-e '/^AuthAlt/d')
    sed "${script[@]}" "$src" >"$dst"
}

append_conf_extra() {
    [[ -n ${SLURM_CONF_EXTRA:-} ]] || return 0
    printf '# from SLURM_CONF_EXTRA\n%s\n' "$SLURM_CONF_EXTRA" >>"$CONF"
}

clean_stale_rundir() {
    if [[ -e $RUNDIR && ! -f $RUNDIR/$MARKER ]]; then
        [[ -d $RUNDIR ]] || die "$RUNDIR exists and is not a directory"
        [[ -z $(ls -A "$RUNDIR") ]] || die "$RUNDIR is not empty and not a run directory made by $PROG"
    fi
    if [[ -f $RUNDIR/$MARKER ]]; then
        # Leftovers of a crashed or half-started cluster: clear them (and free
        # their ports) so job ids restart at 1 and no stale state is loaded.
        log "cleaning stale run directory $RUNDIR"
        # A munged we started stays ours: keep it running and remember it.
        OUR_MUNGED=$(live_pid_from "$RUNDIR/munged.started" munged || true)
        KEEP_MUNGED=1 "$SCRIPT_DIR/down.sh" "$RUNDIR" >/dev/null
    fi
}

prepare_rundir() {
    mkdir -p "$RUNDIR"
    : >"$RUNDIR/$MARKER"
    mkdir -p "$RUNDIR/state" "$RUNDIR/log" "$RUNDIR/dev"
    local i node
    for node in "${NODES[@]}"; do mkdir -p "$RUNDIR/spool/$node"; done
    if [[ -n $MN_NODES ]]; then
        for node in "${NODES[@]}"; do
            for i in 0 1; do mknod "$RUNDIR/dev/$node-nvidia$i" c 195 "$i"; done
        done
    else
        for i in 0 1 2 3; do
            mknod "$RUNDIR/dev/nvidia$i" c 195 "$i"
        done
    fi
    have_jwt_plugin || log "no auth/jwt plugin (package slurm-wlm-jwt-plugin): leaving AuthAlt* out of slurm.conf"
    # Read by the auth/jwt plugin (for slurmrestd), which fails without it.
    head -c 32 /dev/urandom >"$RUNDIR/jwt_hs256.key"
    chmod 0600 "$RUNDIR/jwt_hs256.key"
    if [[ -n $MN_NODES ]]; then
        mn_render "$CONF_DIR/multinode/slurm.conf" "$CONF"
        append_conf_extra
        mn_render "$CONF_DIR/multinode/gres.conf" "$RUNDIR/gres.conf"
    else
        render "$CONF_DIR/slurm.conf" "$CONF"
        append_conf_extra
        render "$CONF_DIR/gres.conf" "$RUNDIR/gres.conf"
    fi
    render "$CONF_DIR/cgroup.conf" "$RUNDIR/cgroup.conf"
    # Read beside slurm.conf only with TopologyPlugin=topology/tree (`spur-conformance both --topology`).
    render "${SLURM_TOPOLOGY_CONF:-$CONF_DIR/topology.conf}" "$RUNDIR/topology.conf"
}

show_logs_and_die() {
    local f node
    log "error: $*"
    for f in "$RUNDIR/log/slurmctld.log" "$RUNDIR"/log/slurmd-*.log "$RUNDIR/log/slurmctld.out" "$RUNDIR"/log/slurmd*.out; do
        [[ -s $f ]] || continue
        printf -- '--- tail of %s ---\n' "$f" >&2
        tail -n 25 "$f" >&2
    done
    log "stopping the daemons; logs stay in $RUNDIR/log (run down.sh $RUNDIR to remove)"
    local pid
    for node in "${NODES[@]}"; do
        if pid=$(live_pid_from "$RUNDIR/slurmd-$node.pid" slurmd); then stop_pid "$pid" slurmd 5; fi
    done
    if pid=$(live_pid_from "$RUNDIR/slurmctld.pid" slurmctld); then stop_pid "$pid" slurmctld 5; fi
    # Nothing outside the run directory outlives a failed start.
    [[ -z $MN_NODES ]] || mn_net_down
    exit 1
}

# Both daemons fork into the background; wait for the PID file of the child.
wait_pidfile() {
    local file=$1 name=$2 i
    for ((i = 0; i < 100; i++)); do
        live_pid_from "$file" "$name" >/dev/null && return 0
        sleep 0.1
    done
    show_logs_and_die "$name did not start (no live PID in $file)"
}

start_daemons() {
    SLURM_CONF=$CONF /usr/sbin/slurmctld -i -f "$CONF" >"$RUNDIR/log/slurmctld.out" 2>&1 ||
        show_logs_and_die "slurmctld exited with status $?"
    wait_pidfile "$RUNDIR/slurmctld.pid" slurmctld
    if [[ -z $MN_NODES ]]; then
        SLURM_CONF=$CONF /usr/sbin/slurmd -f "$CONF" >"$RUNDIR/log/slurmd.out" 2>&1 ||
            show_logs_and_die "slurmd exited with status $?"
        wait_pidfile "$RUNDIR/slurmd-$NODE.pid" slurmd
        return 0
    fi
    local k
    for ((k = 1; k <= MN_NODES; k++)); do
        mn_exec_prefix "$k"
        SLURM_CONF=$CONF "${MN_EXEC[@]}" /usr/sbin/slurmd -N "n$k" -f "$CONF" >"$RUNDIR/log/slurmd-n$k.out" 2>&1 ||
            show_logs_and_die "slurmd -N n$k exited with status $?"
    done
    for ((k = 1; k <= MN_NODES; k++)); do
        wait_pidfile "$RUNDIR/slurmd-n$k.pid" slurmd
    done
}

# Until every node is idle.
wait_idle() {
    local deadline=$((SECONDS + TIMEOUT)) node
    for node in "${NODES[@]}"; do
        wait_node_idle "$node" "$deadline"
    done
}

wait_node_idle() {
    local node=$1 deadline=$2 state=
    while ((SECONDS < deadline)); do
        # A dead slurmctld would make every sinfo call hang for MessageTimeout.
        live_pid_from "$RUNDIR/slurmctld.pid" slurmctld >/dev/null || show_logs_and_die "slurmctld died"
        live_pid_from "$RUNDIR/slurmd-$node.pid" slurmd >/dev/null || show_logs_and_die "slurmd of $node died"
        state=$(node_state "$node")
        case $state in
        idle) return 0 ;;
        *drain* | *inval* | *fail* | down*)
            show_logs_and_die "node $node is '$state': $(SLURM_CONF=$CONF timeout 5 scontrol show node "$node" 2>&1 | grep -o 'Reason=.*' || true)"
            ;;
        esac
        sleep 0.2
    done
    show_logs_and_die "node $node not idle after ${TIMEOUT}s (last state: '${state:-no answer}')"
}

main() {
    ensure_packages
    if already_up; then
        log "cluster already up in $RUNDIR"
        print_exports
        return 0
    fi
    ensure_hostname_resolves
    clean_stale_rundir
    choose_ports
    choose_shape
    [[ -z $MN_NODES ]] || mn_choose_subnet slurm
    prepare_rundir
    if [[ -n $MN_NODES ]]; then
        mn_net_up
        mn_hosts_add
    fi
    ensure_munged
    dbd_up
    start_daemons
    wait_idle
    if [[ -n $MN_NODES ]]; then
        log "nodes n[1-$MN_NODES] idle on $MN_SUBNET.0/24; slurmctld on $MN_CTLD_ADDR:$CTLD_PORT, run directory $RUNDIR"
    else
        log "node $NODE idle; slurmctld on port $CTLD_PORT, run directory $RUNDIR"
    fi
    print_exports
}

main

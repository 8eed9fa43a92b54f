#!/usr/bin/env bash
# Bring up a single-node Spur cluster (spurctld + spurd) from THE SAME templates as the real Slurm target
# (conformance/conf/slurm.conf and gres.conf, node named after `hostname -s`, the same fake GPUs), so that the
# conformance cases see the same cluster on both. Prints `export` lines on stdout:
#
#   eval "$(conformance/targets/spur/up.sh [--nodes N] [RUNDIR])"
#
# With --nodes N (or SPUR_CONF_NODES=N): N nodes n1..nN, one spurd each in a network namespace of its own with its
# own address and host name (../multinode.sh), spurctld listening on the bridge address; the same rendered
# slurm.conf and gres.conf as the Slurm target's multi-node mode. Without it: one node named after this host.
#
# Run as root (spurd starts jobs as their users). RUNDIR defaults to $RUNDIR, then /tmp/spur-spur. The clients
# are the multi-call `spur` binary, linked as sbatch, squeue, ... in $RUNDIR/bin, which goes first on PATH.
# Programs linked with -lslurm find libspur_compat.so as libslurm.so.38 in $RUNDIR/lib (first on LD_LIBRARY_PATH).
#
# Environment:
#   SPUR_UP_TIMEOUT     seconds to wait for the node to become idle (60)
#   SLURMCTLD_PORT      controller port; default 6917, or the next free pair (apart from the Slurm target's)
#   SLURMD_PORT         agent port; default SLURMCTLD_PORT + 1
#   SPUR_CONF_NODES     node count when --nodes is not given (multi-node mode)
#   SLURM_CONF_EXTRA    lines appended to the rendered slurm.conf (as for the Slurm target)
#   SLURM_TOPOLOGY_CONF the topology.conf to render instead of conf/topology.conf
#   SPUR_BIN_DIR        where spurctld, spurd and spur are (default: target/debug; built if missing)
#   SPUR_CLI            the `spur` the commands run, where not $SPUR_BIN_DIR/spur (the static build of
#                       `cargo static-cli`, as conformance/bench.sh uses)
set -euo pipefail
PROG=up.sh
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# shellcheck source-path=SCRIPTDIR source=../multinode.sh
source "$SCRIPT_DIR/../multinode.sh"

USAGE="usage: $PROG [--nodes N] [RUNDIR]   (default: \$RUNDIR or $DEFAULT_RUNDIR); prints export lines"
MN_NODES=${SPUR_CONF_NODES:-}
ARG_RUNDIR=
while (($#)); do
    case $1 in
    -h | --help)
        echo "$USAGE" >&2
        exit 0
        ;;
    --nodes)
        (($# >= 2)) || die "--nodes needs a count"
        MN_NODES=$2
        shift
        ;;
    --nodes=*) MN_NODES=${1#--nodes=} ;;
    -*) die "unknown option '$1'" ;;
    *)
        [[ -z $ARG_RUNDIR ]] || die "$USAGE"
        ARG_RUNDIR=$1
        ;;
    esac
    shift
done

[[ $(id -u) -eq 0 ]] || die "must run as root (spurd starts jobs as their owners)"
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
LOCAL_SOCKET=$RUNDIR/spurctld.sock
TIMEOUT=${SPUR_UP_TIMEOUT:-60}
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "SPUR_UP_TIMEOUT must be a number of seconds"

print_exports() {
    printf 'export RUNDIR=%q\n' "$RUNDIR"
    printf 'export SLURM_CONF=%q\n' "$CONF"
    # Clients on this host authenticate by peer credentials on spurctld's local socket, so the target needs no
    # munged (docs/security.md); the identities are the same ones MUNGE would vouch for.
    printf 'export SPUR_LOCAL_SOCKET=%q\n' "$LOCAL_SOCKET"
    case ":$PATH:" in
    *":$RUNDIR/bin:"*) ;;
    *) printf 'export PATH=%q\n' "$RUNDIR/bin:$PATH" ;;
    esac
    case ":${LD_LIBRARY_PATH:-}:" in
    *":$RUNDIR/lib:"*) ;;
    *) printf 'export LD_LIBRARY_PATH=%q\n' "$RUNDIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
    esac
}

ensure_binaries() {
    local b missing=0
    for b in spurctld spurd spur; do
        [[ -x $BIN_DIR/$b ]] || missing=1
    done
    ((missing)) || return 0
    log "building the workspace (missing binaries in $BIN_DIR)"
    (cd "$REPO_ROOT" && cargo build --workspace >&2) || die "cargo build --workspace failed"
    for b in spurctld spurd spur; do
        [[ -x $BIN_DIR/$b ]] || die "$BIN_DIR/$b still missing after the build"
    done
}

node_state() {
    SLURM_CONF=$CONF SPUR_LOCAL_SOCKET=$LOCAL_SOCKET timeout 5 "$RUNDIR/bin/sinfo" -h -n "$1" -o %T 2>/dev/null | head -n1 || true
}

# The nodes slurm.conf names, one per line (what down.sh also reads).
conf_nodes() {
    sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' "$CONF" 2>/dev/null
}

already_up() {
    [[ -f $RUNDIR/$MARKER && -f $CONF ]] || return 1
    spur_pid "$RUNDIR/spurctld.pid" spurctld >/dev/null || return 1
    # A cluster of another shape (node count) is restarted as asked.
    [[ $(conf_nodes) == "$(printf '%s\n' "${NODES[@]}")" ]] || return 1
    local node
    for node in "${NODES[@]}"; do
        spur_pid "$RUNDIR/spurd-$node.pid" spurd >/dev/null || return 1
    done
    [[ -n $(node_state "${NODES[0]}") ]]
}

ensure_hostname_resolves() {
    getent hosts "$NODE" >/dev/null && return 0
    log "adding '$NODE' to /etc/hosts"
    printf '127.0.0.1 %s\n' "$NODE" >>/etc/hosts
}

port_busy() { [[ -n $(ss -Htln "sport = :$1" 2>/dev/null) ]]; }

# Away from the Slurm target's 6817..., so both can run on one machine.
choose_ports() {
    if [[ -n ${SLURMCTLD_PORT:-} ]]; then
        CTLD_PORT=$SLURMCTLD_PORT
        SLURMD_PORT=${SLURMD_PORT:-$((CTLD_PORT + 1))}
        ! port_busy "$CTLD_PORT" || die "port $CTLD_PORT (SLURMCTLD_PORT) is in use"
        ! port_busy "$SLURMD_PORT" || die "port $SLURMD_PORT (SLURMD_PORT) is in use"
        return 0
    fi
    CTLD_PORT=6917
    while port_busy "$CTLD_PORT" || port_busy "$((CTLD_PORT + 1))"; do
        CTLD_PORT=$((CTLD_PORT + 2))
        ((CTLD_PORT < 7017)) || die "no free port pair in 6917-7016"
    done
    SLURMD_PORT=${SLURMD_PORT:-$((CTLD_PORT + 1))}
}

# The same node shape as the Slurm target (shrunk to this machine), so outputs compare.
choose_shape() {
    local hw_cpus hw_mem
    CPUS=2 MEM=23593
    hw_cpus=$(nproc)
    hw_mem=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
    if command -v slurmd >/dev/null; then
        local hw
        hw=$(slurmd -C 2>/dev/null | head -n1)
        hw_cpus=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$hw")
        hw_mem=$(sed -n 's/.* RealMemory=\([0-9]*\).*/\1/p' <<<"$hw")
    fi
    if [[ -n $hw_cpus && $hw_cpus -lt $CPUS ]]; then CPUS=$hw_cpus; fi
    if [[ -n $hw_mem && $hw_mem -lt $MEM ]]; then MEM=$hw_mem; fi
    CORES=$CPUS
}

have_jwt_plugin() { compgen -G '/usr/lib/*/slurm-wlm/auth_jwt.so' >/dev/null; }

# Exactly the Slurm target's rendering, so both clusters read the same text.
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

clean_stale_rundir() {
    if [[ -e $RUNDIR && ! -f $RUNDIR/$MARKER ]]; then
        [[ -d $RUNDIR ]] || die "$RUNDIR exists and is not a directory"
        [[ -z $(ls -A "$RUNDIR") ]] || die "$RUNDIR is not empty and not a run directory made by $PROG"
    fi
    if [[ -f $RUNDIR/$MARKER ]]; then
        log "cleaning stale run directory $RUNDIR"
        "$SCRIPT_DIR/down.sh" "$RUNDIR" >/dev/null
    fi
}

prepare_rundir() {
    mkdir -p "$RUNDIR"
    : >"$RUNDIR/$MARKER"
    mkdir -p "$RUNDIR/state" "$RUNDIR/log" "$RUNDIR/dev" "$RUNDIR/bin"
    local i name node
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
    head -c 32 /dev/urandom >"$RUNDIR/jwt_hs256.key"
    chmod 0600 "$RUNDIR/jwt_hs256.key"
    local conf_src=$CONF_DIR render_conf=render
    if [[ -n $MN_NODES ]]; then
        conf_src=$CONF_DIR/multinode render_conf=mn_render
    fi
    "$render_conf" "$conf_src/slurm.conf" "$CONF"
    if [[ -n ${SLURM_CONF_EXTRA:-} ]]; then
        printf '# from SLURM_CONF_EXTRA\n%s\n' "$SLURM_CONF_EXTRA" >>"$CONF"
    fi
    "$render_conf" "$conf_src/gres.conf" "$RUNDIR/gres.conf"
    render "$CONF_DIR/cgroup.conf" "$RUNDIR/cgroup.conf"
    # Read beside slurm.conf only with TopologyPlugin=topology/tree (`spur-conformance both --topology`).
    render "${SLURM_TOPOLOGY_CONF:-$CONF_DIR/topology.conf}" "$RUNDIR/topology.conf"
    for name in "${CLIENT_NAMES[@]}"; do
        ln -s "${SPUR_CLI:-$BIN_DIR/spur}" "$RUNDIR/bin/$name"
    done
    mkdir -p "$RUNDIR/lib"
    ln -sf "$BIN_DIR/libspur_compat.so" "$RUNDIR/lib/libslurm.so.38"
}

show_logs_and_die() {
    local f pid node
    log "error: $*"
    for f in "$RUNDIR/log/spurctld.log" "$RUNDIR"/log/spurd-*.log; do
        [[ -s $f ]] || continue
        printf -- '--- tail of %s ---\n' "$f" >&2
        tail -n 25 "$f" >&2
    done
    log "stopping the daemons; logs stay in $RUNDIR/log (run down.sh $RUNDIR to remove)"
    for node in "${NODES[@]}"; do
        if pid=$(spur_pid "$RUNDIR/spurd-$node.pid" spurd); then stop_pid "$pid" spurd 5; fi
    done
    if pid=$(spur_pid "$RUNDIR/spurctld.pid" spurctld); then stop_pid "$pid" spurctld 5; fi
    # Nothing outside the run directory outlives a failed start.
    [[ -z $MN_NODES ]] || mn_net_down
    exit 1
}

# spurctld, started again (up to five times) when it could not bind its address yet: a multinode controller
# binds the bridge address made a moment before, and once in CI the kernel refused it ("Cannot assign requested
# address").
start_ctld() {
    local attempt
    for attempt in 1 2 3 4 5; do
        SLURM_CONF=$CONF SPUR_LOCAL_SOCKET=$LOCAL_SOCKET setsid "$BIN_DIR/spurctld" "$@" </dev/null \
            >"$RUNDIR/log/spurctld.log" 2>&1 &
        printf '%s\n' "$!" >"$RUNDIR/spurctld.pid"
        sleep 0.2
        spur_pid "$RUNDIR/spurctld.pid" spurctld >/dev/null && return 0
        grep -q "Cannot assign requested address" "$RUNDIR/log/spurctld.log" || break
        log "spurctld could not bind its address yet (attempt $attempt); starting it again"
        sleep 0.5
    done
    show_logs_and_die "spurctld exited at once"
}

# Both daemons stay in the foreground: start them in the background in a session of their own (so the caller's
# terminal or process group does not take them down), with stdin closed and output to their logs. MN_EXEC, when
# set, is a prefix (a node's namespaces) that execs the daemon in place.
start_daemon() {
    local name=$1 pidfile=$2 logfile=$3
    shift 3
    SLURM_CONF=$CONF SPUR_LOCAL_SOCKET=$LOCAL_SOCKET setsid ${MN_EXEC[@]+"${MN_EXEC[@]}"} "$BIN_DIR/$name" "$@" </dev/null >"$logfile" 2>&1 &
    printf '%s\n' "$!" >"$pidfile"
    sleep 0.2
    spur_pid "$pidfile" "$name" >/dev/null || show_logs_and_die "$name exited at once"
}

wait_ctld() {
    local i
    for ((i = 0; i < 100; i++)); do
        port_busy "$CTLD_PORT" && return 0
        spur_pid "$RUNDIR/spurctld.pid" spurctld >/dev/null || show_logs_and_die "spurctld died"
        sleep 0.1
    done
    show_logs_and_die "spurctld does not listen on port $CTLD_PORT"
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
        spur_pid "$RUNDIR/spurctld.pid" spurctld >/dev/null || show_logs_and_die "spurctld died"
        spur_pid "$RUNDIR/spurd-$node.pid" spurd >/dev/null || show_logs_and_die "spurd of $node died"
        state=$(node_state "$node")
        case $state in
        idle) return 0 ;;
        *drain* | *inval* | *fail* | down*) show_logs_and_die "node $node is '$state'" ;;
        esac
        sleep 0.2
    done
    show_logs_and_die "node $node not idle after ${TIMEOUT}s (last state: '${state:-no answer}')"
}

# One spurd per node: here, or in each node's namespaces.
start_agents() {
    if [[ -z $MN_NODES ]]; then
        start_daemon spurd "$RUNDIR/spurd-$NODE.pid" "$RUNDIR/log/spurd-$NODE.log" -f "$CONF"
        return 0
    fi
    local k
    for ((k = 1; k <= MN_NODES; k++)); do
        mn_exec_prefix "$k"
        start_daemon spurd "$RUNDIR/spurd-n$k.pid" "$RUNDIR/log/spurd-n$k.log" -f "$CONF" -N "n$k"
    done
    MN_EXEC=()
}

main() {
    ensure_binaries
    if already_up; then
        log "cluster already up in $RUNDIR"
        print_exports
        return 0
    fi
    ensure_hostname_resolves
    clean_stale_rundir
    choose_ports
    choose_shape
    [[ -z $MN_NODES ]] || mn_choose_subnet spur
    prepare_rundir
    local -a listen=()
    if [[ -n $MN_NODES ]]; then
        mn_net_up
        mn_hosts_add
        listen=(--listen "$MN_CTLD_ADDR:$CTLD_PORT")
    fi
    start_ctld -f "$CONF" ${listen[@]+"${listen[@]}"}
    wait_ctld
    start_agents
    wait_idle
    if [[ -n $MN_NODES ]]; then
        log "nodes n[1-$MN_NODES] idle on $MN_SUBNET.0/24; spurctld on $MN_CTLD_ADDR:$CTLD_PORT, run directory $RUNDIR"
    else
        log "node $NODE idle; spurctld on port $CTLD_PORT, run directory $RUNDIR"
    fi
    print_exports
}

main

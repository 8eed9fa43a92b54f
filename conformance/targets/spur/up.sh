#!/usr/bin/env bash
# Bring up a single-node Spur cluster (spurctld + spurd) from THE SAME templates as the real Slurm target
# (conformance/conf/slurm.conf and gres.conf, node named after `hostname -s`, the same fake GPUs), so that the
# conformance cases see the same cluster on both. Prints `export` lines on stdout:
#
#   eval "$(conformance/targets/spur/up.sh [RUNDIR])"
#
# Run as root (spurd starts jobs as their users). RUNDIR defaults to $RUNDIR, then /tmp/spur-spur. The clients
# are the multi-call `spur` binary, linked as sbatch, squeue, ... in $RUNDIR/bin, which goes first on PATH.
#
# Environment:
#   SPUR_UP_TIMEOUT     seconds to wait for the node to become idle (60)
#   SLURMCTLD_PORT      controller port; default 6917, or the next free pair (apart from the Slurm target's)
#   SLURMD_PORT         agent port; default SLURMCTLD_PORT + 1
#   SLURM_CONF_EXTRA    lines appended to the rendered slurm.conf (as for the Slurm target)
#   SPUR_BIN_DIR        where spurctld, spurd and spur are (default: target/debug; built if missing)
set -euo pipefail
PROG=up.sh
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

case ${1:-} in
-h | --help)
    echo "usage: $PROG [RUNDIR]   (default: \$RUNDIR or $DEFAULT_RUNDIR); prints export lines" >&2
    exit 0
    ;;
-*) die "unknown option '$1'" ;;
esac
(($# <= 1)) || die "usage: $PROG [RUNDIR]"

[[ $(id -u) -eq 0 ]] || die "must run as root (spurd starts jobs as their owners)"
RUNDIR=$(resolve_rundir "${1:-}")
NODE=$(node_name)
CONF=$RUNDIR/slurm.conf
TIMEOUT=${SPUR_UP_TIMEOUT:-60}
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "SPUR_UP_TIMEOUT must be a number of seconds"

print_exports() {
    printf 'export RUNDIR=%q\n' "$RUNDIR"
    printf 'export SLURM_CONF=%q\n' "$CONF"
    case ":$PATH:" in
    *":$RUNDIR/bin:"*) ;;
    *) printf 'export PATH=%q\n' "$RUNDIR/bin:$PATH" ;;
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
    SLURM_CONF=$CONF timeout 5 "$RUNDIR/bin/sinfo" -h -n "$NODE" -o %T 2>/dev/null | head -n1 || true
}

already_up() {
    [[ -f $RUNDIR/$MARKER && -f $CONF ]] || return 1
    spur_pid "$RUNDIR/spurctld.pid" spurctld >/dev/null || return 1
    spur_pid "$RUNDIR/spurd-$NODE.pid" spurd >/dev/null || return 1
    [[ -n $(node_state) ]]
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
    mkdir -p "$RUNDIR/state" "$RUNDIR/spool/$NODE" "$RUNDIR/log" "$RUNDIR/dev" "$RUNDIR/bin"
    local i name
    for i in 0 1 2 3; do
        mknod "$RUNDIR/dev/nvidia$i" c 195 "$i"
    done
    head -c 32 /dev/urandom >"$RUNDIR/jwt_hs256.key"
    chmod 0600 "$RUNDIR/jwt_hs256.key"
    render "$CONF_DIR/slurm.conf" "$CONF"
    if [[ -n ${SLURM_CONF_EXTRA:-} ]]; then
        printf '# from SLURM_CONF_EXTRA\n%s\n' "$SLURM_CONF_EXTRA" >>"$CONF"
    fi
    render "$CONF_DIR/gres.conf" "$RUNDIR/gres.conf"
    render "$CONF_DIR/cgroup.conf" "$RUNDIR/cgroup.conf"
    for name in "${CLIENT_NAMES[@]}"; do
        ln -s "$BIN_DIR/spur" "$RUNDIR/bin/$name"
    done
}

show_logs_and_die() {
    local f pid
    log "error: $*"
    for f in "$RUNDIR/log/spurctld.log" "$RUNDIR/log/spurd-$NODE.log"; do
        [[ -s $f ]] || continue
        printf -- '--- tail of %s ---\n' "$f" >&2
        tail -n 25 "$f" >&2
    done
    log "stopping the daemons; logs stay in $RUNDIR/log (run down.sh $RUNDIR to remove)"
    if pid=$(spur_pid "$RUNDIR/spurd-$NODE.pid" spurd); then stop_pid "$pid" spurd 5; fi
    if pid=$(spur_pid "$RUNDIR/spurctld.pid" spurctld); then stop_pid "$pid" spurctld 5; fi
    exit 1
}

# Both daemons stay in the foreground: start them in the background in a session of their own (so the caller's
# terminal or process group does not take them down), with stdin closed and output to their logs.
start_daemon() {
    local name=$1 pidfile=$2 logfile=$3
    shift 3
    SLURM_CONF=$CONF setsid "$BIN_DIR/$name" "$@" </dev/null >"$logfile" 2>&1 &
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

wait_idle() {
    local deadline=$((SECONDS + TIMEOUT)) state=
    while ((SECONDS < deadline)); do
        spur_pid "$RUNDIR/spurctld.pid" spurctld >/dev/null || show_logs_and_die "spurctld died"
        spur_pid "$RUNDIR/spurd-$NODE.pid" spurd >/dev/null || show_logs_and_die "spurd died"
        state=$(node_state)
        case $state in
        idle) return 0 ;;
        *drain* | *inval* | *fail* | down*) show_logs_and_die "node $NODE is '$state'" ;;
        esac
        sleep 0.2
    done
    show_logs_and_die "node $NODE not idle after ${TIMEOUT}s (last state: '${state:-no answer}')"
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
    prepare_rundir
    start_daemon spurctld "$RUNDIR/spurctld.pid" "$RUNDIR/log/spurctld.log" -f "$CONF"
    wait_ctld
    start_daemon spurd "$RUNDIR/spurd-$NODE.pid" "$RUNDIR/log/spurd-$NODE.log" -f "$CONF"
    wait_idle
    log "node $NODE idle; spurctld on port $CTLD_PORT, run directory $RUNDIR"
    print_exports
}

main

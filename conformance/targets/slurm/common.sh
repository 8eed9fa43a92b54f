# shellcheck shell=bash disable=SC2034
# Shared helpers for up.sh and down.sh (sourced, not run); the constants are
# used by the scripts that source this file.
# Everything the scripts say goes to stderr: stdout is kept for the
# `export`/`unset` lines that callers eval.

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CONF_DIR=$(cd "$SCRIPT_DIR/../../conf" && pwd)
DEFAULT_RUNDIR=/tmp/spur-slurm
# A run directory holds this file; down.sh refuses to delete a directory
# without it, so a mistyped argument cannot remove unrelated data.
MARKER=.spur-slurm-rundir

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# True when PID is alive and runs the program NAME. Checking the name guards
# against a stale PID file whose number the kernel has handed to someone else.
pid_is() {
    local pid=$1 name=$2 comm
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
    [[ $comm == "$name" ]]
}

# PID stored in FILE if that process is alive and named NAME.
live_pid_from() {
    local file=$1 name=$2 pid
    [[ -r $file ]] || return 1
    pid=$(tr -dc '0-9' <"$file")
    pid_is "$pid" "$name" || return 1
    printf '%s\n' "$pid"
}

# Send TERM, wait up to SECS for the process to go, then KILL it.
stop_pid() {
    local pid=$1 name=$2 secs=${3:-10} i
    pid_is "$pid" "$name" || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < secs * 10; i++)); do
        pid_is "$pid" "$name" || return 0
        sleep 0.1
    done
    log "$name ($pid) ignored SIGTERM for ${secs}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 20; i++)); do
        pid_is "$pid" "$name" || return 0
        sleep 0.1
    done
    log "warning: $name ($pid) is still alive"
}

resolve_rundir() {
    local dir=${1:-${RUNDIR:-$DEFAULT_RUNDIR}}
    [[ -n $dir ]] || die "empty run directory"
    [[ $dir == /* ]] || dir="$PWD/$dir"
    # Normalise without requiring the directory to exist yet.
    dir=$(realpath -m -- "$dir")
    [[ $dir != / ]] || die "refusing to use / as the run directory"
    printf '%s\n' "$dir"
}

node_name() { hostname -s; }

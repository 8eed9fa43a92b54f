# shellcheck shell=bash
# Helpers for conformance cases: `. "$CASE_LIB"` at the top of run.sh.
#
# The runner starts run.sh in a fresh, empty work directory with CASE_DIR (the case's own directory), CASE_TMP
# (scratch space outside the work directory) and the target's SLURM_CONF and PATH. Only what run.sh prints is
# compared, so helpers print nothing on stdout unless asked to and report trouble on stderr.
#
#   submit ARGS...         sbatch --parsable ARGS, print the job id, remember it for cleanup
#   track ID...            remember job ids submitted some other way
#   wait_done ID...        until none of the jobs is pending, running or completing
#   wait_state ID STATE    until squeue reports STATE (RUNNING, PENDING, ...) for the job
#   wait_reason ID REASON  until the job is pending with REASON
#   field ID KEY           one KEY=value field of `scontrol show job ID`, value only
#   fields ID KEY...       `KEY=value` lines for the given keys, in the order asked
#   slurm_env FILE         the SLURM_* and GPU lines of an `env` dump, sorted
#   wait_acct ID...        until sacct shows each job ended, named (slurmdbd records jobs a few seconds late)
#   drop_partitions_on_exit P...  delete partitions the case created, on exit, after its jobs have ended
#
# On exit every remembered job is cancelled, so a failing case leaves nothing behind.

WAIT_LIMIT=${WAIT_LIMIT:-40}
_JOBS_FILE=${CASE_TMP:-/tmp}/jobs

_cleanup_jobs() {
    [[ -s $_JOBS_FILE ]] || return 0
    # shellcheck disable=SC2046
    scancel $(sort -u "$_JOBS_FILE") >/dev/null 2>&1 || true
}
trap _cleanup_jobs EXIT

# On exit, once the case's jobs have been cancelled and have ended, delete these partitions the case created (a
# partition with jobs still completing cannot be deleted, and a leftover one changes later cases' sinfo).
drop_partitions_on_exit() {
    _PARTITIONS_TO_DROP=("$@")
    trap _drop_partitions EXIT
}

_drop_partitions() {
    local p
    _cleanup_jobs
    # shellcheck disable=SC2046
    [[ -s $_JOBS_FILE ]] && wait_done $(sort -u "$_JOBS_FILE") >/dev/null 2>&1
    for p in "${_PARTITIONS_TO_DROP[@]}"; do scontrol delete partition="$p" >/dev/null 2>&1; done
}

track() {
    local id
    for id in "$@"; do printf '%s\n' "${id%%;*}" >>"$_JOBS_FILE"; done
}

submit() {
    local out rc
    out=$(sbatch --parsable "$@")
    rc=$?
    [[ -n $out ]] && track "$out"
    printf '%s\n' "$out"
    return $rc
}

_state() { squeue -h -j "$1" -o %T 2>/dev/null | head -n1; }

# Still queued: pending, running, completing, ... Slurm's squeue drops finished jobs from its default listing;
# a finished job that is still listed counts as done too, so waiting does not depend on that.
_active() {
    local st
    st=$(squeue -h -j "$1" -o %T 2>/dev/null | grep -v -x -E 'COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|PREEMPTED|BOOT_FAIL|DEADLINE' | head -n1)
    [[ -n $st ]]
}

wait_done() {
    local id deadline=$((SECONDS + WAIT_LIMIT))
    for id in "$@"; do
        while _active "$id"; do
            if ((SECONDS >= deadline)); then
                echo "wait_done: job $id still '$(_state "$id")' after ${WAIT_LIMIT}s" >&2
                return 1
            fi
            sleep 0.2
        done
    done
}

wait_state() {
    local id=$1 want=$2 deadline=$((SECONDS + WAIT_LIMIT)) st
    while st=$(_state "$id"); [[ $st != "$want" ]]; do
        if ((SECONDS >= deadline)); then
            echo "wait_state: job $id is '$st', not '$want', after ${WAIT_LIMIT}s" >&2
            return 1
        fi
        sleep 0.2
    done
}

# slurmdbd may first write a job it learns of from its end as `allocation` and correct the name a moment later.
wait_acct() {
    local id st deadline=$((SECONDS + WAIT_LIMIT))
    for id in "$@"; do
        while st=$(sacct -X -n -P -j "$id" -o State,JobName 2>/dev/null | head -n1)
            [[ -z $st || $st == PENDING\|* || $st == RUNNING\|* || $st == *\|allocation ]]; do
            if ((SECONDS >= deadline)); then
                echo "wait_acct: job $id is '$st' in sacct after ${WAIT_LIMIT}s" >&2
                return 1
            fi
            sleep 0.3
        done
    done
}

wait_reason() {
    local id=$1 want=$2 deadline=$((SECONDS + WAIT_LIMIT)) r
    while r=$(squeue -h -j "$id" -o %r 2>/dev/null | head -n1); [[ $r != "$want" ]]; do
        if ((SECONDS >= deadline)); then
            echo "wait_reason: job $id has reason '$r', not '$want', after ${WAIT_LIMIT}s" >&2
            return 1
        fi
        sleep 0.2
    done
}

# scontrol's job record is KEY=value words; values never contain blanks except in a few free-text keys.
_words() { scontrol show job "$1" 2>&1 | tr -s ' \n' '\n\n'; }

field() {
    _words "$1" | sed -n "s/^$2=//p" | head -n1
}

fields() {
    local id=$1 words k
    shift
    words=$(_words "$id")
    for k in "$@"; do
        grep -m1 "^$k=" <<<"$words" || echo "$k: missing"
    done
}

slurm_env() {
    grep -E '^(SLURM|SLURMD|CUDA|GPU|ROCR|ZE)_' "$1" | sort
}

# Waits until this host's node shows the compact state $1 in sinfo (`idle`, `resv`, `maint`...).
wait_node() {
    local h deadline=$((SECONDS + WAIT_LIMIT))
    h=$(hostname -s)
    until [[ $(sinfo -h -n "$h" -o %t) == "$1" ]]; do
        ((SECONDS < deadline)) || { echo "node is not $1" >&2; return 1; }
        sleep 0.2
    done
}

# slurmrestd for the REST cases (201-209): the target's own (real slurmrestd, or Spur's `slurmrestd` link) on a
# free loopback port with rest_auth/jwt, requests over bash's /dev/tcp (no HTTP client needed), stopped at exit.
#
#   rest_start                      start it, and get root a token (REST_USER, REST_TOKEN)
#   rest METHOD PATH [BODY]         one request as REST_USER/REST_TOKEN (none when REST_TOKEN is empty); prints
#                                   `http CODE`, then the body
# REST_PORTS=LO-HI bounds the ports tried (default 30000-49999).
_REST_PID=
rest_start() {
    local lo hi port tries
    lo=${REST_PORTS%-*} hi=${REST_PORTS#*-}
    [[ -n ${REST_PORTS:-} ]] || { lo=30000 hi=49999; }
    REST_USER=root
    REST_TOKEN=$(scontrol token lifespan=600 | sed -n 's/^SLURM_JWT=//p')
    [[ -n $REST_TOKEN ]] || { echo "rest_start: no token from scontrol token" >&2; return 1; }
    for ((tries = 0; tries < 20; tries++)); do
        port=$((lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1)))
        # Something answers there already: try another.
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
        SLURMRESTD_SECURITY=disable_user_check SLURM_JWT=daemon \
            slurmrestd -a rest_auth/jwt -s openapi/v0.0.38 "127.0.0.1:$port" \
            >"${CASE_TMP:-/tmp}/slurmrestd.log" 2>&1 &
        _REST_PID=$!
        trap '_cleanup_jobs; _rest_stop' EXIT
        local deadline=$((SECONDS + 10))
        while kill -0 "$_REST_PID" 2>/dev/null && ((SECONDS < deadline)); do
            if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
                REST_PORT=$port
                return 0
            fi
            sleep 0.1
        done
        _rest_stop
    done
    echo "rest_start: slurmrestd did not start" >&2
    cat "${CASE_TMP:-/tmp}/slurmrestd.log" >&2
    return 1
}

_rest_stop() {
    [[ -n $_REST_PID ]] || return 0
    kill "$_REST_PID" 2>/dev/null
    wait "$_REST_PID" 2>/dev/null
    _REST_PID=
}

rest() {
    local method=$1 path=$2 body=${3:-} reply auth=""
    if [[ -n ${REST_TOKEN:-} ]]; then
        auth="X-SLURM-USER-NAME: $REST_USER"$'\r\n'"X-SLURM-USER-TOKEN: $REST_TOKEN"$'\r\n'
    fi
    exec 3<>"/dev/tcp/127.0.0.1/$REST_PORT" || return 1
    printf '%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n%sContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
        "$method" "$path" "$auth" "${#body}" "$body" >&3
    local status line length=0
    # The status line and headers (bash reads a socket a byte at a time, so nothing past them is consumed), then
    # exactly Content-Length bytes of body: real slurmrestd writes a stray header line after some bodies.
    IFS=' ' read -r -t 60 _ status _ <&3
    while IFS= read -r -t 60 line <&3 && [[ $line != $'\r' ]]; do
        if [[ ${line,,} =~ ^content-length:\ *([0-9]+) ]]; then length=${BASH_REMATCH[1]}; fi
    done
    reply=$(timeout 60 head -c "$length" <&3)
    exec 3<&-
    printf 'http %s\n%s\n' "$status" "$reply"
}

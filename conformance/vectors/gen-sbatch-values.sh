#!/usr/bin/env bash
# Generate sbatch test vectors from a real Slurm 22.05 cluster:
#
#   sbatch-values.tsv  how sbatch and slurmctld parse option values: for each
#                      value, `sbatch --hold --parsable --wrap=true OPT=VALUE`
#                      (or `OPT VALUE` for short options), then the parsed
#                      value read back with `scontrol show job -o`.
#   sbatch-errors.tsv  exact stderr and exit status of sbatch for bad input.
#
# usage: conformance/vectors/gen-sbatch-values.sh [OUTDIR]
#
# With SLURM_CONF set, runs against that (throwaway) cluster; otherwise brings
# one up with conformance/targets/slurm/up.sh in a temporary run directory and
# tears it down afterwards. Run as root. It submits about 800 jobs (mostly held)
# and cancels them; for -C it gives the node the features fa,fb,fc for a while.
# OUTDIR defaults to core/tests/vectors/slurm-22.05-generated.
set -uo pipefail
PROG=gen-sbatch-values.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUTDIR=${1:-$REPO/core/tests/vectors/slurm-22.05-generated}
TARGET=$REPO/conformance/targets/slurm

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ $(id -u) -eq 0 ]] || die "must run as root"
mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

TMPD=$(mktemp -d /tmp/gen-sbatch.XXXXXX)
OWN_RUNDIR=
J1='' J2='' A=''
cleanup() {
    cancel_pending
    [[ -n ${FEATURES_SET:-} ]] && reset_features
    if [[ -n $OWN_RUNDIR ]]; then "$TARGET/down.sh" "$OWN_RUNDIR" >/dev/null; fi
    rm -rf -- "$TMPD"
}
trap cleanup EXIT

if [[ -z ${SLURM_CONF:-} ]]; then
    OWN_RUNDIR=$TMPD/cluster
    eval "$("$TARGET/up.sh" "$OWN_RUNDIR")" || die "could not bring up a cluster"
fi
[[ -r $SLURM_CONF ]] || die "SLURM_CONF=$SLURM_CONF is not readable"

# Jobs are submitted from here; results show it as $SUBMIT_DIR.
SUBMIT_DIR=$TMPD/submit
mkdir -p "$SUBMIT_DIR"
VALUES=$OUTDIR/sbatch-values.tsv
ERRORS=$OUTDIR/sbatch-errors.tsv

# A clean environment: SBATCH_* or SLURM_* variables of the caller would
# change what sbatch parses. UTC makes wall-clock values comparable.
slurm_env() {
    env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin HOME=/root LANG=C TZ=UTC SLURM_CONF="$SLURM_CONF" "$@"
}

NODE=$(slurm_env sinfo -h -o %N | head -n1)
[[ -n $NODE ]] || die "no node answers through SLURM_CONF=$SLURM_CONF"
VERSION=$(slurm_env sbatch --version)

# Runs sbatch in SUBMIT_DIR with stdin from SB_STDIN; sets RC, OUT, ERR.
SB_STDIN=/dev/null
sb() {
    OUT=$(cd "$SUBMIT_DIR" && slurm_env timeout 20 sbatch "$@" <"$SB_STDIN" 2>"$TMPD/err")
    RC=$?
    ERR=$(<"$TMPD/err")
}

PENDING=()
remember_job() {
    PENDING+=("${1%%;*}")
    ((${#PENDING[@]} < 200)) || cancel_pending
}
cancel_pending() {
    ((${#PENDING[@]})) || return 0
    slurm_env scancel "${PENDING[@]}" 2>/dev/null
    PENDING=()
}

# TSV cells: backslash, tab and newline written as \\, \t and \n.
esc() {
    local s=${1//\\/\\\\}
    s=${s//$'\t'/\\t}
    s=${s//$'\r'/\\r}
    printf '%s' "${s//$'\n'/\\n}"
}
row() {
    local out=$1
    shift
    local first=1 cell
    for cell in "$@"; do
        ((first)) || printf '\t' >>"$out"
        esc "$cell" >>"$out"
        first=0
    done
    printf '\n' >>"$out"
}

norm() {
    local s=${1//$SUBMIT_DIR/\$SUBMIT_DIR}
    printf '%s' "${s//$TMPD/\$TMPDIR}"
}

# Value of FIELD in a `scontrol show job -o` line. Values run up to the next
# " Key=" (JobName or Comment may hold spaces).
field_of() {
    local line=" $1" f=$2 rest
    rest=${line#* "$f"=}
    if [[ $rest == "$line" ]]; then
        printf '(absent)'
        return
    fi
    sed -E -e 's/ [A-Za-z][A-Za-z0-9/:_]*=.*//' -e 's/ +$//' <<<"$rest"
}

show_job() { slurm_env scontrol show job -o "$1" 2>&1 | head -n1; }

# Wait for the start of the next second, so that a job submitted right after
# sees the same "now" in sbatch (which resolves now+N) and in slurmctld
# (which stamps SubmitTime).
align_second() {
    local ns
    ns=$(date +%N)
    sleep "$(printf '0.%03d' $(((1000000000 - 10#$ns) / 1000000 % 1000)))"
}

epoch() { TZ=UTC date -d "$1" +%s 2>/dev/null; }

# probe OPTION "FIELD..." VALUE...
# Long options are passed as OPTION=VALUE, short ones as OPTION VALUE.
# Placeholders {J1} {J2} {A} in values stand for job ids made by
# make_dependency_targets; they are put back in place of those ids in results.
probe() {
    local opt=$1 fields=$2 value arg f line id result
    shift 2
    for value in "$@"; do
        arg=$value
        arg=${arg//\{J1\}/$J1}
        arg=${arg//\{J2\}/$J2}
        arg=${arg//\{A\}/$A}
        [[ $opt == --begin && $value == now* ]] && align_second
        if [[ $value == "(none)" ]]; then
            sb --hold --parsable --wrap=true "$opt"
        elif [[ $opt == --* ]]; then
            sb --hold --parsable --wrap=true "$opt=$arg"
        else
            sb --hold --parsable --wrap=true "$opt" "$arg"
        fi
        if ((RC != 0)); then
            for f in $fields; do
                row "$VALUES" "$opt" "$value" "$RC" "$f" "$(norm "${ERR%%$'\n'*}")"
            done
            continue
        fi
        id=${OUT%%;*}
        remember_job "$id"
        line=$(show_job "$id")
        for f in $fields; do
            result=$(field_of "$line" "$f")
            [[ $f == Dependency ]] && result=$(unplace_ids "$result")
            if [[ $opt == --begin && $f == EligibleTime ]]; then
                result=$(begin_result "$value" "$line" "$result")
            fi
            row "$VALUES" "$opt" "$value" "$RC" "$f" "$(norm "$result")"
        done
        if [[ $opt == --begin && $result != submit+* ]]; then
            row "$VALUES" "$opt" "$value" "$RC" SubmitTime "$(field_of "$line" SubmitTime)"
        fi
        # Output patterns expand %j and %A: give the id they expanded to.
        case $opt in
        -o | --output | -e | --error | -i | --input) row "$VALUES" "$opt" "$value" "$RC" JobId "$id" ;;
        esac
        if [[ -n $ERR ]]; then
            row "$VALUES" "$opt" "$value" "$RC" "(stderr)" "$(norm "$ERR")"
        fi
    done
}

unplace_ids() {
    local s=$1
    [[ -n ${A:-} ]] && s=$(sed -E "s/(^|[^0-9])$A([^0-9]|$)/\1{A}\2/g" <<<"$s")
    [[ -n ${J1:-} ]] && s=$(sed -E "s/(^|[^0-9])$J1([^0-9]|$)/\1{J1}\2/g" <<<"$s")
    [[ -n ${J2:-} ]] && s=$(sed -E "s/(^|[^0-9])$J2([^0-9]|$)/\1{J2}\2/g" <<<"$s")
    printf '%s' "$s"
}

# "now..." values become submit+SECONDS; others keep the absolute time, and
# probe adds a SubmitTime row so the vector can be checked against it.
begin_result() {
    local value=$1 line=$2 eligible=$3 s e
    if [[ $value == now* && $eligible != Unknown ]]; then
        s=$(epoch "$(field_of "$line" SubmitTime)") e=$(epoch "$eligible")
        if [[ -n $s && -n $e ]]; then
            printf 'submit+%d' $((e - s))
            return
        fi
    fi
    printf '%s' "$eligible"
}

make_dependency_targets() {
    sb --hold --parsable --wrap=true
    J1=${OUT%%;*}
    sb --hold --parsable --wrap=true
    J2=${OUT%%;*}
    sb --hold --parsable --wrap=true --array=1-3
    A=${OUT%%;*}
    [[ $J1 =~ ^[0-9]+$ && $J2 =~ ^[0-9]+$ && $A =~ ^[0-9]+$ ]] || die "could not submit dependency targets: $ERR"
    remember_job "$J1"
    remember_job "$J2"
    remember_job "$A"
}

FEATURES_SET=
set_features() {
    slurm_env scontrol update NodeName="$NODE" AvailableFeatures=fa,fb,fc ActiveFeatures=fa,fb,fc ||
        die "cannot set node features"
    FEATURES_SET=1
}
reset_features() {
    slurm_env scontrol update NodeName="$NODE" AvailableFeatures= ActiveFeatures= || true
    FEATURES_SET=
}

write_values_header() {
    cat >"$VALUES" <<EOF
# sbatch option values as parsed by real $VERSION (Debian 12 packages), one row per (value, field).
# generated $(date -u +%Y-%m-%dT%H:%M:%SZ) by conformance/vectors/gen-sbatch-values.sh against the single-node
# cluster of conformance/targets/slurm/up.sh (node $NODE: CPUs=2 RealMemory=23593 Gres=gpu:a100:4, DefMemPerCPU=1024,
# MaxArraySize=10001, one partition 'debug'; for -C the node had features fa,fb,fc).
# each row: cd \$SUBMIT_DIR; env -i TZ=UTC SLURM_CONF=... sbatch --hold --parsable --wrap=true OPTION=VALUE
# (short options: OPTION VALUE; value (none): OPTION alone); on rc 0, field = its value in \`scontrol show job -o JOBID\` ((absent) when not
# printed); on failure, the first line of stderr. A successful submission that printed to stderr adds a (stderr) row.
# --begin: "now..." values as submit+SECONDS from SubmitTime, others as printed (UTC) followed by a SubmitTime row.
# -d: {J1} {J2} are held plain jobs, {A} a held array job 1-3, in values and results. -o/-e/-i add a JobId row
# (their %j/%A expand to it). Cells escape backslash, tab, newline as \\\\ \\t \\n.
# Held jobs skip slurmctld's check that the node can ever satisfy them: --mem/--gres/--gpus/--tmp beyond this node are
# accepted here but fail without --hold ("Requested node configuration is not available", see sbatch-errors.tsv).
option	value	rc	field	result
EOF
}

gen_values() {
    write_values_header

    probe --time TimeLimit \
        '(none)' 0 1 10 59 60 61 1440 100000 1:00 1:30 0:30 0:59 0:61 1:60 59:59 01:02:03 100:00:00 0:0:1 0:0:30 \
        1-0 1-1 1-1:1 1-1:1:1 2-00:00:00 0-0:0:30 365-0 0-0 INFINITE infinite UNLIMITED unlimited -1 -5 \
        abc 1x 1.5 10- 1:2:3:4 1--1 '' ' 10' 10s 1h 99999999 4294967295 1-24 1-0:60
    probe -t TimeLimit 5 1:00:00 2-0 abc ''

    local mem=('(none)' 0 1 100 1024 1K 1024K 1025K 1M 1G 2G 1T 1g 1m 1k 1t 500M 1.5G 0.5G -1 abc 1X 1P 512k '' 0M
        100MB 1e3 +1 0x10 '1 G' 22G 23593 23594 24G 10000000 4294967294 4294967295 18446744073709551615)
    probe --mem "MinMemoryNode MinMemoryCPU TRES" "${mem[@]}"
    probe --mem-per-cpu "MinMemoryCPU MinMemoryNode TRES" "${mem[@]}"

    probe --nodes "NumNodes TRES" \
        1 1-1 1-2 2 2-3 0 0-1 -1 1- -1-2 a 1,2 1-0 2-1 01 1k 1K 1:2 1-2-3 '' ' 1' 1.0 1-1000 100 \
        4294967295 1x 1-a min 1-2:3 1-
    probe -N NumNodes 1 2 1-3 abc

    probe --array "ArrayTaskId ArrayTaskThrottle NumCPUs" \
        0-3 1-10:2 1,3,5 1-5%2 0-9%1 5 0 10000 10001 0-10000 9999-10000 -1 1- a 1-3:0 3-1 1-10:3 1,2-4,7 \
        1-3,5-7%2 %2 1-3% 1-3%0 1:2 1-1000000 1--3 ' 1' 1-3%-1 1-3:-1 1,,2 1-3,%2 007 1-3%1000 '' 1-2-3 \
        0x10 1-10:2%2 '[1-3]' 1-3:1 1-10:20 1,1,1
    probe -a ArrayTaskId 1-3 '1-3%1' x

    probe --ntasks "NumTasks NumCPUs NumNodes" '(none)' 1 2 3 4 8 16 32 64 1024 65536 0 -0 -1 abc 1k '' 1.5 01 \
        2x ' 2' '2 ' +2 0x2 1e1 1-2 1,2 2147483647 2147483648 4294967295
    probe -n NumTasks 1 2 0 abc
    probe --cpus-per-task "CPUs/Task NumCPUs" '(none)' 1 2 3 4 8 64 1024 65536 0 -0 -1 abc 1k '' 1.5 01 2x \
        ' 2' '2 ' +2 0x2 1e1 1-2 1,2 2147483647 2147483648 4294967295
    probe -c CPUs/Task 1 2 0 abc

    probe --tmp MinTmpDiskNode '(none)' 0 1 2 100 512 1024 1M 1G 1T 1K 1k 1m 1g 1t 1024K 1025K 0M 10G 100MB \
        abc -1 1.5G 0.5G '' 1P 0x10 +1 '1 G' 1e3 4294967295 18446744073709551615
    probe --partition Partition '(none)' debug nope '' DEBUG Debug debu 'debug*' '*' all debug,nope nope,debug \
        debug,debug debug,,debug ' debug' 'debug ' debug, ,debug , 'debug debug' "$(printf 'p%.0s' {1..300})"
    probe -p Partition debug nope

    probe --nice "Nice Priority" '(none)' 0 1 10 -1 -10 -100 100 100000 +5 +0 -0 00 010 abc '' 2147483644 \
        2147483645 2147483646 2147483647 -2147483645 -2147483646 10000000000 1.5 ' 5' ' -5' --5 +-5 5x 0x10 1e3
    probe --job-name JobName x 'my job' '' 'a=b' "$(printf 'n%.0s' {1..200})" 'tab	in' ' lead' 'Ω' '%j'
    probe -J JobName x ''

    make_dependency_targets
    probe --dependency Dependency \
        'afterok:{J1}' 'afterany:{J1}' 'afternotok:{J1}' 'after:{J1}' 'after:{J1}+5' 'afterok:{J1}:{J2}' \
        'afterok:{J1},afterany:{J2}' 'afterok:{J1}?afterany:{J2}' singleton 'afterburstbuffer:{J1}' \
        'aftercorr:{A}' 'afterok:{A}_1' 'afterok:{A}_*' 'afterok:{A}' 'expand:{J1}' afterok:999999 afterok \
        afterok: afterok:abc 'foo:{J1}' '{J1}' '{J1}:{J2}' 'afterok:{J1},singleton' afterok:-1 '' , \
        'afterok:{J1}?singleton' 'after:{J1}+abc' 'after:{J1}+-1' 'AFTEROK:{J1}' 'afterok:{J1}+5' \
        'afterany:{J1}:{J1}' afterok:0 'afterok:{J1}_0' 'afterok:{J1},afterok:{J1}' 'afterok:{J1}:'
    probe -d Dependency 'afterok:{J1}' singleton nope

    probe --gres "TresPerNode TRES" \
        gpu gpu:1 gpu:2 gpu:4 gpu:5 gpu:a100 gpu:a100:1 gpu:a100:4 gpu:a100:5 gpu:h100:1 gpu:0 gpu:a100:0 \
        foo foo:1 gpu:-1 gpu:1k gpu:1K gpu:abc gpu:a100:1,gpu:a100:1 gpu:1,gpu:1 none gpu:2G '' gpu:1.5 \
        gpu:a100:1:2 gpu: :1 gpu:a100: GPU:1 gpu:A100:1 'gpu:1(S:0)' gpu:01 'gpu:1 '
    probe --gpus "TresPerJob TRES" 1 2 4 5 0 -1 a100:2 h100:1 a100 gpu:2 gpu:a100:1 abc '' 1k 1.5 a100:0 ':1'
    probe -G TresPerJob 1 a100:2 h100:1
    probe --gpus-per-node TresPerNode 1 4 5 a100:2 h100:1 0 abc ''
    probe --gpus-per-task TresPerTask 1 2 a100:1 0 abc
    probe --cpus-per-gpu CpusPerTres 1 2 0 abc ''
    probe --mem-per-gpu MemPerTres 1 1G 100M 0 abc '' 1T

    probe --begin EligibleTime now now+0 now+1 now+60 now+60seconds now+1minute now+1minutes now+2hours now+1hour now+1day \
        now+1days now+1week now+1weeks now+abc now+ now-60 now+1month now+1year now+10000000000 \
        today tomorrow midnight noon teatime elevenses fika 16:00 16:00:30 23:59 00:00 25:00 12:60 \
        2030-01-01 2030-01-01T12:00 2030-01-01T12:00:30 2030-1-1 2030-13-01 2030-02-30 2020-01-01 \
        01/15/30 011530 12/31 12/31/30 13/01/30 yesterday garbage '' +60 1700000000 2030-01-01T25:00 \
        now+1minute+1hour NOW Tomorrow 'now + 60'

    set_features
    probe --constraint Features \
        fa 'fa&fb' 'fa|fb' 'fa,fb' '[fa|fb]' '[fa&fb]' 'fa*1' '[fa*1&fb*1]' '(fa|fb)&fc' '(fa&fb)|fc' '!fa' \
        nope 'fa&nope' 'fa|nope' 'fa&' '&fa' '|fa' 'fa|' '' 'fa fb' '((fa))' '(fa' 'fa)' '[fa' 'fa]' \
        'fa*' 'fa*0' 'fa*x' '[fa|fb]&fc' 'fa&fb&fc' 'fa|fb|fc' 'FA' 'fa&fa' 'f-a' 'fa:fb'
    probe -C Features fa nope
    reset_features

    probe --output "StdOut StdErr" \
        out.txt /tmp/abs.txt %j.out %A_%a.out %x-%j %u %N %n %t %s %% %5j %05j %10j '\%j' %a %b %J %Z \
        '' dir/ %j%j %A %x %%j 'a b' '%' '%0j' '%-5j' '%20j' 'slurm-%j.out' /dev/null none
    probe -o StdOut %j.out '%x'
    probe --error StdErr err.txt %j.err '%x-%A' ''
    probe --input StdIn in.txt %j.in /dev/null none ''
    probe --chdir "WorkDir StdOut" /tmp . .. sub /nonexistent '' 'a b'

    probe --nodelist "ReqNodeList NumNodes" "$NODE" "${NODE}[1-2]" nope "$NODE,$NODE" '' "$NODE,nope"
    probe --exclude ExcNodeList "$NODE" nope ''
    probe --ntasks-per-node "NtasksPerN:B:S:C NumTasks" 1 2 3 0 -1 abc ''
    probe --time-min "TimeMin TimeLimit" 1 1:00 1-0 0 abc '' UNLIMITED
    probe --deadline Deadline now+1hour 2030-01-01 2020-01-01 abc ''
    probe --mail-type "MailType MailUser" NONE BEGIN END FAIL REQUEUE ALL STAGE_OUT TIME_LIMIT TIME_LIMIT_90 \
        TIME_LIMIT_80 TIME_LIMIT_50 ARRAY_TASKS INVALID_DEPEND BEGIN,END begin nope ''
    probe --comment Comment hello 'a b' ''
    probe --requeue Requeue '(none)' x
    probe --no-requeue Requeue '(none)'
    probe --exclusive OverSubscribe '(none)' user mcs bogus '' USER
    probe --oversubscribe OverSubscribe '(none)'
    probe --contiguous Contiguous '(none)'
}

# errcase DESCRIPTION ARG...  (stdin from SB_STDIN; scripts live in SUBMIT_DIR)
errcase() {
    local desc=$1 shown='' a q
    shift
    sb "$@"
    if ((RC == 0)); then remember_job "$(grep -o '[0-9]*' <<<"$OUT" | head -n1)"; fi
    for a in "$@"; do
        q=$(norm "$a")
        [[ $q =~ [[:space:]\'] || -z $q ]] && q="'${q//\'/\'\\\'\'}'"
        shown+=${shown:+ }$q
    done
    row "$ERRORS" "$shown" "$desc" "$RC" "$(norm_err "$ERR")"
}

# Job ids and times in messages depend on the run.
norm_err() {
    norm "$1" | sed -E -e 's/[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}/{TIME}/g' \
        -e 's/([Jj]ob )[0-9]+/\1{JOBID}/g'
}

write_scripts() {
    local d=$SUBMIT_DIR
    printf 'echo hi\n' >"$d/noshebang.sh"
    : >"$d/empty.sh"
    printf '#!/bin/sh\necho a\0b\n' >"$d/binary.sh"
    printf '\0\1\2\3' >"$d/allbinary.sh"
    printf '#!/bin/sh\r\necho hi\r\n' >"$d/dos.sh"
    printf '#!/bin/sh\n' >"$d/shebang-only.sh"
    printf '#!/bin/sh\necho hi\n' >"$d/ok.sh"
    printf '#!/bin/sh\n#SBATCH --bogus\necho hi\n' >"$d/directive-bogus.sh"
    printf '#!/bin/sh\n#SBATCH -t abc\necho hi\n' >"$d/directive-badtime.sh"
    printf '#!/bin/sh\n#SBATCH --mem=1X\necho hi\n' >"$d/directive-badmem.sh"
    printf '#!/bin/sh\n#SBATCH --time\necho hi\n' >"$d/directive-noarg.sh"
    printf '\n#!/bin/sh\necho hi\n' >"$d/blank-first-line.sh"
    printf '#!\necho hi\n' >"$d/bare-shebang.sh"
    printf ' #!/bin/sh\necho hi\n' >"$d/space-shebang.sh"
    printf '#!/bin/sh\n#SBATCH --wrap=true\necho hi\n' >"$d/directive-wrap.sh"
    printf '#!/bin/sh\n#SBATCH --array=a\necho hi\n' >"$d/directive-badarray.sh"
    printf '#!/bin/sh\necho hi\n' >"$d/stdin-ok.sh"
    printf 'echo hi\n' >"$d/stdin-noshebang.sh"
    mkdir -p "$d/adir"
}

write_errors_header() {
    cat >"$ERRORS" <<EOF
# sbatch exit status and complete stderr for bad (and some borderline) input, from real $VERSION.
# generated $(date -u +%Y-%m-%dT%H:%M:%SZ) by conformance/vectors/gen-sbatch-values.sh against the single-node
# cluster of conformance/targets/slurm/up.sh (node $NODE: CPUs=2 RealMemory=23593 Gres=gpu:a100:4, partition debug).
# each row: cd \$SUBMIT_DIR; env -i TZ=UTC SLURM_CONF=... sbatch ARGS <STDIN; the scripts named in args are described
# in the second column (stdin is /dev/null unless it says otherwise). stderr lines are joined with a literal \\n;
# job ids in stderr are written {JOBID}, timestamps {TIME}. No --hold unless shown (held jobs skip slurmctld's check
# that the node can ever satisfy them); accepted jobs ran \`true\` or were cancelled.
args	stdin_or_script	rc	stderr
EOF
}

gen_errors() {
    write_errors_header
    write_scripts
    local S=$SUBMIT_DIR

    errcase "no script: --wrap" --bogus-option --wrap=true
    errcase "no script" --bogus-option
    errcase "script: ok.sh ('#!/bin/sh' + 'echo hi')" --bogus-option "$S/ok.sh"
    errcase "no script: --wrap" -Z --wrap=true
    errcase "no script: --wrap" -Q -Z --wrap=true
    errcase "no script: --wrap" --n 2 --wrap=true
    errcase "no script: --wrap" --nod 1 --wrap=true
    errcase "no script: --wrap" --no 1 --wrap=true
    errcase "no script: --wrap" --ti 5 --wrap=true
    errcase "no script: --wrap" --tim=5 --wrap=true
    errcase "no script: --wrap (unique prefix of --partition)" --parti=nope --wrap=true
    errcase "no script: --wrap" --wrap=true --time
    errcase "no script: --wrap" --wrap=true -t
    errcase "no script" --wrap
    errcase "no script: --wrap" --wrap=true --hold=1
    errcase "no script: --wrap" --wrap=true --parsable=x
    errcase "no script: --wrap" --wrap=true -
    errcase "no script: --wrap" --wrap=true --
    errcase "no script: --wrap (empty)" --wrap=
    errcase "stdin: empty (/dev/null)"
    SB_STDIN=$S/stdin-noshebang.sh
    errcase "stdin: 'echo hi' (no shebang)"
    SB_STDIN=$S/stdin-ok.sh
    errcase "stdin: '#!/bin/sh' + 'echo hi'"
    errcase "stdin: '#!/bin/sh' + 'echo hi'; script argument -" -
    SB_STDIN=/dev/null
    errcase "script: 'echo hi' (no shebang)" "$S/noshebang.sh"
    errcase "script: empty file" "$S/empty.sh"
    errcase "script: '#!/bin/sh' then a line with a NUL byte" "$S/binary.sh"
    errcase "script: 4 binary bytes 00 01 02 03" "$S/allbinary.sh"
    errcase "script: '#!/bin/sh' with CRLF line ends" "$S/dos.sh"
    errcase "script: only '#!/bin/sh'" "$S/shebang-only.sh"
    errcase "script: blank line, then '#!/bin/sh'" "$S/blank-first-line.sh"
    errcase "script: '#!' alone on the first line" "$S/bare-shebang.sh"
    errcase "script: ' #!/bin/sh' (leading space)" "$S/space-shebang.sh"
    errcase "script: does not exist" "$S/nonexistent.sh"
    errcase "script: a directory" "$S/adir"
    errcase "script: ok.sh ('#!/bin/sh' + 'echo hi')" --wrap=true "$S/ok.sh"
    errcase "script: ok.sh; options after the script are its arguments" "$S/ok.sh" --time=abc
    errcase "script: '#SBATCH --bogus'" "$S/directive-bogus.sh"
    errcase "script: '#SBATCH -t abc'" "$S/directive-badtime.sh"
    errcase "script: '#SBATCH --mem=1X'" "$S/directive-badmem.sh"
    errcase "script: '#SBATCH --time' (no value)" "$S/directive-noarg.sh"
    errcase "script: '#SBATCH --wrap=true'" "$S/directive-wrap.sh"
    errcase "script: '#SBATCH --array=a'" "$S/directive-badarray.sh"
    errcase "script: '#SBATCH -t abc', overridden on the command line" -t 5 "$S/directive-badtime.sh"

    errcase "no script: --wrap" -p nosuch --wrap=true
    errcase "no script: --wrap" -p '' --wrap=true
    errcase "no script: --wrap" -n 64 --wrap=true
    errcase "no script: --wrap" -c 3 --wrap=true
    errcase "no script: --wrap" -c 64 --wrap=true
    errcase "no script: --wrap" -N 2 --wrap=true
    errcase "no script: --wrap" -N 1-2 --wrap=true
    errcase "no script: --wrap" --mem=30G --wrap=true
    errcase "no script: --wrap" --mem-per-cpu=20G -n 2 --wrap=true
    errcase "no script: --wrap" --mem=1G --mem-per-cpu=1G --wrap=true
    errcase "no script: --wrap" --mem-per-gpu=1G --mem-per-cpu=1G --gpus=1 --wrap=true
    errcase "no script: --wrap" --gres=gpu:h100:1 --wrap=true
    errcase "no script: --wrap" --gres=gpu:a100:5 --wrap=true
    errcase "no script: --wrap" --gres=foo:1 --wrap=true
    errcase "no script: --wrap" --gres=gpu:abc:x --wrap=true
    errcase "no script: --wrap" --gpus=h100:1 --wrap=true
    errcase "no script: --wrap" --gpus=5 --wrap=true
    errcase "no script: --wrap" --gres=gpu:1 --gpus=1 --wrap=true
    errcase "no script: --wrap" --tmp=1G --wrap=true
    errcase "no script: --wrap" -C nope --wrap=true
    errcase "no script: --wrap" -w nope --wrap=true
    errcase "no script: --wrap" -x "$NODE" --wrap=true
    errcase "no script: --wrap" --licenses=foo:1 --wrap=true
    errcase "no script: --wrap" --qos=nope --wrap=true
    errcase "no script: --wrap" --account=nope --wrap=true
    errcase "no script: --wrap" --reservation=nope --wrap=true
    errcase "no script: --wrap" --uid=nosuchuser --wrap=true
    errcase "no script: --wrap" --gid=nosuchgroup --wrap=true
    errcase "no script: --wrap" --chdir=/nonexistent --wrap=true
    errcase "no script: --wrap" --export=NONE --wrap=true
    errcase "no script: --wrap" --signal=BOGUS --wrap=true
    errcase "no script: --wrap" --signal=B:USR1@abc --wrap=true
    errcase "no script: --wrap" --distribution=bogus --wrap=true
    errcase "no script: --wrap" --open-mode=bogus --wrap=true
    errcase "no script: --wrap" --mail-type=bogus --wrap=true
    errcase "no script: --wrap" --cpu-freq=bogus --wrap=true
    errcase "no script: --wrap" --exclusive=bogus --wrap=true
    errcase "no script: --wrap" --ntasks-per-node=abc --wrap=true
    errcase "no script: --wrap" --priority=abc --wrap=true
    errcase "no script: --wrap" --test-only --wrap=true
    errcase "no script: --wrap" --hold --test-only --wrap=true
    errcase "no script: --wrap" --hold --mem=30G --wrap=true
    errcase "no script: --wrap" --hold --gres=gpu:a100:5 --wrap=true
    errcase "no script: --wrap" --test-only -n 64 --wrap=true

    local v
    for v in abc -1 1:2:3:4 1.5 10- '' 1:60 1--1; do errcase "no script: --wrap" "--time=$v" --wrap=true; done
    for v in abc -1 1X 1.5G '' 1P 10000000 +1; do errcase "no script: --wrap" "--mem=$v" --wrap=true; done
    for v in abc -1 1X 1.5G ''; do errcase "no script: --wrap" "--mem-per-cpu=$v" --wrap=true; done
    for v in 0 abc -1 2 1-0 2-1 1- 1,2 ''; do errcase "no script: --wrap" "--nodes=$v" --wrap=true; done
    for v in a -1 10001 1-3:0 3-1 1-3%0 %2 1- '' 1-1000000 1,,2; do errcase "no script: --wrap" "--array=$v" --wrap=true; done
    for v in afterok:999999 afterok afterok:abc foo:1 '' ',' afterok:-1 after:1+abc expand:1; do errcase "no script: --wrap" "--dependency=$v" --wrap=true; done
    for v in garbage now+abc 25:00 2030-13-01 2030-02-30 yesterday now+ '' 12:60; do errcase "no script: --wrap" "--begin=$v" --wrap=true; done
    for v in abc -1 ''; do errcase "no script: --wrap" "--ntasks=$v" --wrap=true; done
    for v in abc 0 -1 ''; do errcase "no script: --wrap" "--cpus-per-task=$v" --wrap=true; done
    for v in abc 1.5 ''; do errcase "no script: --wrap" "--nice=$v" --wrap=true; done
    for v in gpu:-1 gpu:abc '' gpu:1.5; do errcase "no script: --wrap" "--gres=$v" --wrap=true; done
    for v in abc -1 1X ''; do errcase "no script: --wrap" "--tmp=$v" --wrap=true; done
}

log "generating $VALUES"
SECONDS=0
gen_values
cancel_pending
log "values done in ${SECONDS}s ($(grep -vc '^#' "$VALUES") lines); generating $ERRORS"
gen_errors
cancel_pending
log "done in ${SECONDS}s ($(grep -vc '^#' "$ERRORS") error lines)"

#!/usr/bin/env bash
# Runs SchedMD's own python testsuite for Slurm 22.05 (testsuite/python of tag slurm-22-05-8-1, vendored in
# shared/vendor; used in place, never copied here) in full against one target, on a fresh single-node cluster of
# that target, and writes every test's outcome:
#
#   conformance/schedmd/run.sh TARGET OUTDIR [TEST_FILE...]     TARGET: slurm | spur
#
# OUTDIR/TARGET.results   one line per test, sorted by id: `OUTCOME ID`, OUTCOME one of passed, failed, skipped,
#                         error (setup/teardown failed, or the file could not be collected), timeout (the file's
#                         time ran out before the test ended)
# OUTDIR/TARGET.log       pytest's output, file after file
# OUTDIR/TARGET.time      seconds the run took (cluster start and stop included)
#
# TEST_FILE: paths relative to testsuite/python (e.g. tests/commands/srun/test_--chdir.py); default: all 102.
# Run as root (the targets need it), holding whatever lock keeps other clusters off the conformance ports.
#
# Environment:
#   SCHEDMD_TARBALL     the vendored testsuite (default: ../shared/vendor/slurm-22.05.8-testsuite-python.tar.gz
#                       beside the repository, or /work/shared/vendor/...)
#   SCHEDMD_FILE_TIMEOUT  seconds one test file may run (default 120; the slowest file takes 20 s on Slurm): a hung test stalls only its own file
#   SCHEDMD_RUNDIR      the cluster's run directory (default /tmp/spur-schedmd-TARGET)
#
# The cluster is the conformance targets' single-node cluster (conf/slurm.conf: one node, 2 CPUs, 4 fake GPUs)
# plus SCHEDMD_CONF below. The tests run in --local-config mode: a test whose preconditions this configuration
# does not meet skips itself rather than reconfiguring the cluster.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

# The lines added to the conformance cluster's slurm.conf, chosen to let the most tests run on one node:
# - immediate scheduling (as the single-node conformance mode): tests wait for jobs with short timeouts;
# - accounting through slurmdbd (Slurm's target starts slurmdbd and MariaDB, Spur keeps its own records): the
#   sacct, sprio, hetjob and slurmrestd tests require it (atf.require_accounting), and nothing here asks for
#   AccountingStorageType=none except srun --exclusive's test, which also needs 4 nodes;
# - priority/multifactor: the sprio tests require it (priority/basic is wanted by one test that also needs
#   auto-config).
# No AccountingStorageEnforce: tests submit as root, which has no association in the fresh database.
SCHEDMD_CONF='SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
AccountingStorageType=accounting_storage/slurmdbd
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightJobSize=1000
PriorityWeightPartition=1000'

usage() { echo "usage: $0 slurm|spur OUTDIR [TEST_FILE...]" >&2; exit 2; }
(($# >= 2)) || usage
target=$1 out=$2
shift 2
[[ $target == slurm || $target == spur ]] || usage
[[ $(id -u) -eq 0 ]] || { echo "$0: must run as root" >&2; exit 2; }

tarball=${SCHEDMD_TARBALL:-}
if [[ -z $tarball ]]; then
    for t in "$repo/../shared/vendor/slurm-22.05.8-testsuite-python.tar.gz" \
        /work/shared/vendor/slurm-22.05.8-testsuite-python.tar.gz; do
        [[ -f $t ]] && { tarball=$t; break; }
    done
fi
[[ -f $tarball ]] || { echo "$0: testsuite tarball not found (set SCHEDMD_TARBALL)" >&2; exit 2; }
/usr/bin/python3 -c 'import pytest, pexpect, py' 2>/dev/null ||
    { echo "$0: /usr/bin/python3 lacks pytest, pexpect or py (python3-pytest python3-pexpect python3-py)" >&2; exit 2; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
started=$SECONDS
work=$(mktemp -d /tmp/spur-schedmd-ts.XXXXXX)
rundir=${SCHEDMD_RUNDIR:-/tmp/spur-schedmd-$target}
up=0
cleanup() {
    if ((up)); then
        (unset SLURM_CONF_EXTRA; "$repo/conformance/targets/$target/down.sh" "$rundir" >/dev/null 9>&-) || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

tar -xzf "$tarball" -C "$work"
suite=$(find "$work" -type d -path '*/testsuite/python' | head -n1)
[[ -d $suite/tests ]] || { echo "$0: no testsuite/python/tests in $tarball" >&2; exit 2; }

exports=$(SLURM_CONF_EXTRA=$SCHEDMD_CONF "$repo/conformance/targets/$target/up.sh" "$rundir" 9>&-) ||
    { echo "$0: the $target cluster did not start" >&2; exit 1; }
up=1
eval "$exports"
# Slurm's clients are in /usr/bin; Spur's up.sh puts its own first on PATH. atf finds the config directory from
# SLURM_CONF and reads testsuite.conf for the rest.
printf 'SlurmInstallDir=/usr\nSlurmConfigDir=%s\n' "$(dirname "$SLURM_CONF")" >"$work/testsuite.conf"
export SLURM_TESTSUITE_CONF=$work/testsuite.conf PYTHONPATH=$here PYTHONDONTWRITEBYTECODE=1

if (($#)); then
    files=("$@")
else
    mapfile -t files < <(cd "$suite" && find tests -name 'test_*.py' | LC_ALL=C sort)
fi
raw=$work/outcomes
log=$out/$target.log
: >"$log"
timeout_s=${SCHEDMD_FILE_TIMEOUT:-120}
for f in "${files[@]}"; do
    t0=$SECONDS
    printf '===== %s\n' "$f" >>"$log"
    # -p outcomes: our plugin (outcomes.py) records each test's outcome; --local-config: never reconfigure.
    (cd "$suite" && SCHEDMD_OUTCOMES=$raw timeout -k 10 "$timeout_s" /usr/bin/python3 -m pytest \
        -p no:cacheprovider -p outcomes -q -rA -o console_output_style=classic --local-config "$f") \
        >>"$log" 2>&1 </dev/null
    rc=$?
    printf '===== %s: exit %s after %s s\n' "$f" "$rc" "$((SECONDS - t0))" >>"$log"
    # A file whose jobs outlive it (a timeout, a failed cancel) must not occupy the node for the next one.
    scancel --user=root >/dev/null 2>&1 || true
done

# Collected tests that never ended ran into their file's timeout.
awk '$1 == "collected" { c[$2] = 1; next } { o[$2] = $1 }
     END { for (id in c) if (!(id in o)) print "timeout", id; for (id in o) print o[id], id }' "$raw" |
    LC_ALL=C sort -k2 >"$out/$target.results"
echo "$((SECONDS - started))" >"$out/$target.time"
awk '{ n[$1]++ } END { for (k in n) printf "%s %d  ", k, n[k]; print "" }' "$out/$target.results" |
    sed "s/^/schedmd $target: /" >&2

#!/usr/bin/env bash
# Runs pyslurm 22.5.3's own test suite (built by build.sh) against the cluster the environment points at
# (SLURM_CONF; on a Spur target LD_LIBRARY_PATH already puts libslurm.so.38 -> libspur_compat.so first) and prints
# the ids of the tests that passed, sorted, one a line: the conformance cases 491/492 compare these lists between
# Slurm and Spur.
#
#   conformance/pyslurm/run-tests.sh PYTEST_ARGS...    e.g. tests/integration --ignore=tests/integration/test_db_job.py
#
# PYSLURM_RESULTS=DIR (default: the case's CASE_TMP, kept in the runner's output directory) also writes every test's outcome (`PASSED|FAILED|ERROR|SKIPPED id`, pytest's -rA summary)
# and pytest's whole output to DIR/<cluster>.results and DIR/<cluster>.log, <cluster> being the name of the
# directory holding SLURM_CONF (the conformance run directory of each target), for the per-test table in
# docs/libspur_compat.md. Otherwise pytest's output is dropped: why a test fails differs by target and is not what
# the cases compare.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! tree=$("$here/build.sh"); then
    # Name the target, so the two sides differ and the case fails instead of comparing two empty lists as equal.
    target=slurm
    [[ -n ${RUNDIR:-} && -e $RUNDIR/lib/libslurm.so.38 ]] && target=spur
    echo "pyslurm could not be built (target $target)"
    exit 2
fi
export PYTHONPATH=$tree PYTHONDONTWRITEBYTECODE=1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# -p no:cacheprovider: nothing written into the shared build tree; -rA: one summary line per test;
# the tests' own conftest and util modules are found from their directories (rootdir-relative imports).
(cd "$tree" && timeout "${PYSLURM_TIMEOUT:-1500}" /usr/bin/python3 -m pytest -p no:cacheprovider -q -rA \
    -o console_output_style=classic "$@") >"$log" 2>&1
# The summary lines: "PASSED tests/x.py::test_y", "FAILED tests/x.py::test_z - reason".
outcomes=$(grep -E '^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) ' "$log" | sed -E 's/ - .*$//')
results=${PYSLURM_RESULTS:-${CASE_TMP:-}}
if [[ -n $results ]]; then
    name=$(basename "$(dirname "${SLURM_CONF:-/etc/slurm/slurm.conf}")")
    mkdir -p "$results"
    printf '%s\n' "$outcomes" | sort -k2 >>"$results/$name.results"
    cat "$log" >>"$results/$name.log"
fi
printf '%s\n' "$outcomes" | awk '$1 == "PASSED" { print $2 }' | sort

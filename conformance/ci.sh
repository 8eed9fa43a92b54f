#!/usr/bin/env bash
# The side-by-side suite as CI runs it: builds the workspace, then runs every case against real Slurm and against
# Spur (`spur-conformance both`), one cluster after the other, then the multi-node cases on 3-node clusters of
# both (one network namespace per node), then the cgroup cases on clusters started with task/cgroup, then the
# priority cases on clusters started with priority/multifactor (conformance/src/main.rs PRIORITY_CONF), then the
# access cases on clusters started with PrivateData=jobs and restricted partitions (ACCESS_CONF), then the
# topology cases on clusters started with topology/tree (TOPOLOGY_CONF, conf/topology.conf), then the prolog
# cases on clusters started with conf/prolog.sh and PrologFlags=Alloc,Contain, then the accounting (sacct) cases on
# clusters started with AccountingStorageType=accounting_storage/slurmdbd (Slurm with slurmdbd and a private
# MariaDB, targets/slurm/dbd.sh; Spur with its own records), then SchedMD's own python testsuite for 22.05 in full
# on both targets (schedmd/run.sh; results and logs in $CONFORMANCE_OUT-schedmd), and fails
# on any difference that is not a declared known difference (each listed in docs/compatibility.md), and on any
# SchedMD test that passes on Slurm but not on Spur unless schedmd/flaky.txt or schedmd/known-failures.txt lists it. Reports land
# in $CONFORMANCE_OUT (default /tmp/spur-conformance), $CONFORMANCE_OUT-multinode, -cgroup, -priority, -access,
# -topology, -prolog and -accounting:
# report.md, report.json, and the raw runs under slurm/ and spur/.
#
#   conformance/ci.sh [--quick] [extra spur-conformance both options, e.g. --filter squeue]
#
# --quick runs only the single-node cases tagged `ci = true` (a few minutes). Needs root and the Slurm packages
# (.ci/deps.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${CONFORMANCE_OUT:-/tmp/spur-conformance}
quick=0
args=()
for a in "$@"; do
    if [[ $a == --quick ]]; then quick=1; args+=(--ci); else args+=("$a"); fi
done
started=$SECONDS
cargo build --workspace --locked >&2

# Shows a failed run's differing cases in the log (CI keeps only the log).
show_failures() {
    [[ -f $1/report.md ]] && awk '/^## /{show = ($0 !~ /: (pass|known-difference|skipped)$/)} show' "$1/report.md" >&2
    return 0
}

rc=0
target/debug/spur-conformance both --out "$OUT" "${args[@]}" || { rc=$?; show_failures "$OUT"; }
if ((quick == 0)); then
    target/debug/spur-conformance both --nodes 3 --out "$OUT-multinode" "${args[@]}" ||
        { rc=1; show_failures "$OUT-multinode"; }
    target/debug/spur-conformance both --cgroup --out "$OUT-cgroup" "${args[@]}" ||
        { rc=1; show_failures "$OUT-cgroup"; }
    target/debug/spur-conformance both --priority --out "$OUT-priority" "${args[@]}" ||
        { rc=1; show_failures "$OUT-priority"; }
    target/debug/spur-conformance both --access --out "$OUT-access" "${args[@]}" ||
        { rc=1; show_failures "$OUT-access"; }
    target/debug/spur-conformance both --topology --out "$OUT-topology" "${args[@]}" ||
        { rc=1; show_failures "$OUT-topology"; }
    target/debug/spur-conformance both --prolog --out "$OUT-prolog" "${args[@]}" ||
        { rc=1; show_failures "$OUT-prolog"; }
    target/debug/spur-conformance both --accounting --out "$OUT-accounting" "${args[@]}" ||
        { rc=1; show_failures "$OUT-accounting"; }
    # SchedMD's testsuite: every test file on Slurm, then on Spur; check.sh compares the two result lists.
    rm -rf "$OUT-schedmd"
    if conformance/schedmd/run.sh slurm "$OUT-schedmd" && conformance/schedmd/run.sh spur "$OUT-schedmd"; then
        conformance/schedmd/check.sh "$OUT-schedmd" || rc=1
    else
        echo "conformance: SchedMD's testsuite did not run (see above)" >&2
        rc=1
    fi
fi
# A recap at the end, where a CI log's tail shows it: each mode's totals and the cases that failed or passed only
# when run again.
for report in "$OUT" "$OUT-multinode" "$OUT-cgroup" "$OUT-priority" "$OUT-access" "$OUT-topology" "$OUT-prolog" "$OUT-accounting"; do
    [[ -f $report/report.md ]] || continue
    echo "conformance recap $report: $(sed -n 3p "$report/report.md")" >&2
    grep -E '^\| [^|]+ \| (diff|error|pass-on-retry) ' "$report/report.md" >&2 || true
done
# SchedMD's testsuite: its totals and the tests that pass on Slurm only, once more at the end.
[[ ! -s $OUT-schedmd/spur.results ]] || conformance/schedmd/check.sh "$OUT-schedmd" || true
echo "conformance: finished in $((SECONDS - started)) s (exit $rc); reports: $OUT/report.md $OUT-multinode/report.md $OUT-cgroup/report.md $OUT-priority/report.md $OUT-access/report.md $OUT-topology/report.md $OUT-prolog/report.md $OUT-accounting/report.md $OUT-schedmd/{slurm,spur}.{results,log}" >&2
exit "$rc"

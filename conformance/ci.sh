#!/usr/bin/env bash
# Quick conformance check for CI: builds the workspace, then runs the cases tagged `ci = true` against real
# Slurm and against Spur (`spur-conformance both --ci`), one cluster after the other, and fails on any
# difference that is not a declared known difference. The report lands in $CONFORMANCE_OUT (default
# /tmp/spur-conformance-ci): report.md, report.json, and the raw runs under slurm/ and spur/.
#
#   conformance/ci.sh [extra spur-conformance both options, e.g. --filter squeue]
#
# Needs root and the Slurm packages (.ci/deps.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${CONFORMANCE_OUT:-/tmp/spur-conformance-ci}
started=$SECONDS
cargo build --workspace --locked >&2
rc=0
target/debug/spur-conformance both --ci --out "$OUT" "$@" || rc=$?
echo "conformance: finished in $((SECONDS - started)) s (exit $rc); report: $OUT/report.md" >&2
exit "$rc"

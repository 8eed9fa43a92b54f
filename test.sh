#!/usr/bin/env bash
# Runs every test of the workspace: unit, vector, property and integration tests (which start real daemons), then
# the conformance suite, which runs every case on real Slurm 22.05 and on Spur and fails on unlisted differences,
# then the benchmark suite's short mode.
# Needs root (it installs packages and starts Slurm's daemons).
set -euo pipefail
cd "$(dirname "$0")"
.ci/deps.sh
cargo build --workspace --locked
if cargo nextest --version >/dev/null 2>&1; then
    cargo nextest run --workspace --locked --no-tests=pass --no-fail-fast
else
    cargo test --workspace --locked --no-fail-fast
fi
cargo test --workspace --locked --doc
# The side-by-side suite: every conformance case on real Slurm 22.05 and on Spur, diffed.
conformance/ci.sh
# The benchmark suite in its short mode (figures printed, never asserted), so that it cannot rot.
target/debug/spur-conformance bench --short --out /tmp/spur-bench-ci

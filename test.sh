#!/usr/bin/env bash
# Runs every test of the workspace: unit, vector, property and integration tests (which start real daemons).
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

#!/usr/bin/env bash
# The full benchmark suite on release binaries: builds them, then runs `spur-conformance bench` with the given
# arguments (e.g. --write-docs docs/benchmarks.md). Needs root, like the conformance targets.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --workspace --bins --lib
SPUR_BIN_DIR=$PWD/target/release exec target/release/spur-conformance bench "$@"

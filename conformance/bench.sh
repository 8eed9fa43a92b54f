#!/usr/bin/env bash
# The full benchmark suite on release binaries: builds them, then runs `spur-conformance bench` with the given
# arguments (e.g. --write-docs docs/performance.md). Needs root, like the conformance targets. The commands are the
# static build (`cargo static-cli`), as docs/admin.md recommends installing them.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --workspace --bins --lib
cargo static-cli
SPUR_CLI=$PWD/target/x86_64-unknown-linux-gnu/release/spur SPUR_BIN_DIR=$PWD/target/release \
    exec target/release/spur-conformance bench "$@"

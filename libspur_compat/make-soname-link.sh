#!/usr/bin/env bash
# Makes DIR/libslurm.so.38 -> libspur_compat.so, so DIR can go first on LD_LIBRARY_PATH in place of libslurm.
#   libspur_compat/make-soname-link.sh DIR [PATH/TO/libspur_compat.so]   (default: target/release, else debug)
set -euo pipefail
dir=${1:?usage: make-soname-link.sh DIR [libspur_compat.so]}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
so=${2:-}
if [[ -z $so ]]; then
    for profile in release debug; do
        [[ -f $root/target/$profile/libspur_compat.so ]] && { so=$root/target/$profile/libspur_compat.so; break; }
    done
fi
[[ -n $so && -f $so ]] || { echo "make-soname-link.sh: libspur_compat.so not found; build it first" >&2; exit 1; }
mkdir -p "$dir"
ln -sf "$(realpath "$so")" "$dir/libslurm.so.38"
echo "$dir/libslurm.so.38 -> $(realpath "$so")"

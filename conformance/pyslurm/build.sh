#!/usr/bin/env bash
# Builds pyslurm 22.5.3 from the vendored tarball (shared/vendor/pyslurm-22.5.3.tar.gz, never committed) with
# Debian's python3 and cython3 against Debian's Slurm headers and libslurm, once per tarball: the build lives in a
# cache directory named after the tarball's digest, and later calls only print its path.
#
#   conformance/pyslurm/build.sh [TARBALL]   -> prints the directory to put on PYTHONPATH (the source tree, whose
#                                               tests/ the cases run)
#
# Environment: PYSLURM_TARBALL (default: shared/vendor/pyslurm-22.5.3.tar.gz beside the repository, then
# /work/shared/vendor/...), PYSLURM_CACHE (default /var/tmp/spur-pyslurm). Needs python3-dev, cython3, gcc and
# libslurm-dev (.ci/deps.sh). The extension modules' RUNPATH is /usr/lib/x86_64-linux-gnu; a Spur target puts
# libslurm.so.38 -> libspur_compat.so first on LD_LIBRARY_PATH, which the loader prefers.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
tarball=${1:-${PYSLURM_TARBALL:-}}
if [[ -z $tarball ]]; then
    for t in "$repo/shared/vendor/pyslurm-22.5.3.tar.gz" /work/shared/vendor/pyslurm-22.5.3.tar.gz; do
        [[ -f $t ]] && { tarball=$t; break; }
    done
fi
[[ -n $tarball && -f $tarball ]] || { echo "pyslurm tarball not found (set PYSLURM_TARBALL)" >&2; exit 2; }
digest=$(sha256sum "$tarball" | cut -c1-16)
cache=${PYSLURM_CACHE:-/var/tmp/spur-pyslurm}
dest=$cache/$digest
mkdir -p "$cache"
# One build at a time (two cases, or two helpers, may ask at once).
exec 8>"$cache/.lock"
flock 8
if [[ ! -f $dest/.built ]]; then
    rm -rf "$dest" "$dest.tmp"
    mkdir -p "$dest.tmp"
    tar -xzf "$tarball" -C "$dest.tmp" --strip-components=1
    (
        cd "$dest.tmp"
        # build_ext --inplace puts the modules next to their sources, so the tree itself is importable.
        /usr/bin/python3 setup.py build_ext --inplace -j "$(nproc)" \
            --slurm-lib=/usr/lib/x86_64-linux-gnu --slurm-inc=/usr/include
    ) >"$cache/build-$digest.log" 2>&1 || {
        echo "pyslurm build failed; see $cache/build-$digest.log" >&2
        tail -20 "$cache/build-$digest.log" >&2
        exit 1
    }
    touch "$dest.tmp/.built"
    mv "$dest.tmp" "$dest"
fi
printf '%s\n' "$dest"

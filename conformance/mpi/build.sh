#!/usr/bin/env bash
# Builds the MPI test programs (ranks.c, abort.c) once per source digest, for each MPI found: Open MPI
# (mpicc.openmpi) and MPICH (mpicc.mpich), into a cache directory, and prints that directory. The binaries are
# <dir>/ranks.openmpi, <dir>/abort.openmpi, <dir>/ranks.mpich, <dir>/abort.mpich. A missing MPI is an error
# (.ci/deps.sh installs openmpi-bin, libopenmpi-dev, mpich, libmpich-dev).
#
#   conformance/mpi/build.sh          -> prints the directory
#
# Environment: SPUR_MPI_CACHE (default /var/tmp/spur-mpi).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
digest=$(cat "$here/ranks.c" "$here/abort.c" "$here/build.sh" | sha256sum | cut -c1-16)
cache=${SPUR_MPI_CACHE:-/var/tmp/spur-mpi}
dest=$cache/$digest
mkdir -p "$cache"
# One build at a time: several cases may ask at once.
exec 8>"$cache/.lock"
flock 8
if [[ ! -f $dest/.built ]]; then
    rm -rf "$dest.tmp"
    mkdir -p "$dest.tmp"
    for mpi in openmpi mpich; do
        command -v "mpicc.$mpi" >/dev/null || { echo "mpicc.$mpi not found (install $mpi)" >&2; exit 1; }
        for prog in ranks abort; do
            "mpicc.$mpi" -O2 -o "$dest.tmp/$prog.$mpi" "$here/$prog.c"
        done
    done
    touch "$dest.tmp/.built"
    rm -rf "$dest"
    mv "$dest.tmp" "$dest"
fi
printf '%s\n' "$dest"

#!/usr/bin/env bash
# Builds pyslurm 22.5.3 (the release for Slurm 22.05) against Debian's libslurm-dev into DIR (default
# target/pyslurm): DIR/build/lib.*/pyslurm/ then holds its extension modules. Prints DIR/build on success.
# The source is the sdist named by PYSLURM_SDIST, else the one pip downloads from PyPI (cached in DIR).
# Debian's python (/usr/bin/python3) and cython3 build it: a pyenv/venv python on PATH may lack Cython.
# Used by libspur_compat/tests/consumer_symbols.rs (SPUR_PYSLURM_BUILD names a build made elsewhere).
set -euo pipefail
VERSION=22.5.3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${1:-$here/../../target/pyslurm}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
py=/usr/bin/python3
sdist=${PYSLURM_SDIST:-}
if [[ -z $sdist ]]; then
    sdist=$dir/pyslurm-$VERSION.tar.gz
    if [[ ! -s $sdist ]]; then
        "$py" -m pip download --quiet --no-deps --no-binary :all: --dest "$dir" "pyslurm==$VERSION" >&2
    fi
fi
src=$dir/pyslurm-$VERSION
if [[ ! -f $src/setup.py ]]; then
    tar -xzf "$sdist" -C "$dir"
fi
# setup.py reads the Slurm headers and library from these; --build-base keeps the output under DIR.
(cd "$src" && "$py" setup.py -q build --slurm-lib=/usr/lib/x86_64-linux-gnu --slurm-inc=/usr/include \
    --build-base "$dir/build" >&2)
echo "$dir/build"

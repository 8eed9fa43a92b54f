#!/usr/bin/env bash
# Makes (once per machine) a virtual environment of Debian's python3 with submitit from PyPI, for conformance case
# 514; prints its python. SUBMITIT_VENV overrides where it goes (default /var/tmp/spur-submitit/VERSION).
set -euo pipefail
version=${SUBMITIT_VERSION:-1.5.4}
venv=${SUBMITIT_VENV:-/var/tmp/spur-submitit/$version}
if ! "$venv/bin/python" -c 'import submitit' >/dev/null 2>&1; then
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    # A half-made environment never stays behind: build beside it, then rename.
    tmp=$(mktemp -d "$venv.XXXXXX")
    /usr/bin/python3 -m venv "$tmp" >&2
    "$tmp/bin/pip" install -q --disable-pip-version-check "submitit==$version" >&2
    # venv writes its own path into its scripts; the python we use is run by path, so a rename is fine.
    mv "$tmp" "$venv"
fi
echo "$venv/bin/python"

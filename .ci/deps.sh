#!/usr/bin/env bash
# Installs the Debian packages Spur's build and tests need, only those missing. Idempotent; needs root for apt.
set -euo pipefail

# Real Slurm 22.05 is the oracle for the conformance suite and the generated test vectors.
PACKAGES=(slurm-wlm slurmctld slurmd slurm-client munge)

missing=()
for p in "${PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "deps: missing packages (${missing[*]}); run as root or install them" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

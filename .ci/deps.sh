#!/usr/bin/env bash
# Installs the Debian packages Spur's build and tests need, only those missing. Idempotent; needs root for apt.
set -euo pipefail

# Real Slurm 22.05 is the oracle for the conformance suite and the generated test vectors.
# munge (munged, mungekey) and libmunge-dev: Spur authenticates through libmunge, and its tests start private munged.
PACKAGES=(slurm-wlm slurmctld slurmd slurm-client munge libmunge-dev)
# auth/jwt on the Slurm side, so `scontrol token` and SLURM_JWT are compared with tokens actually issued.
PACKAGES+=(slurm-wlm-jwt-plugin)
# slurm-headers runs bindgen on Slurm's headers (libslurm-dev, libclang-dev, clang); the C API tests compile C
# programs against them (gcc, which also builds the benchmark suite's API client) and check load/free cycles for leaks
# (valgrind).
PACKAGES+=(libslurm-dev libclang-dev clang gcc valgrind)
# The REST conformance cases (201-209) run the targets' slurmrestd.
PACKAGES+=(slurmrestd)
# The accounting conformance mode (`both --accounting`) runs real slurmdbd on a private MariaDB (about 15 s to
# install).
PACKAGES+=(slurmdbd mariadb-server)
# Programs built on libslurm that must run against libspur_compat (libspur_compat/tests/consumer_symbols.rs,
# conformance cases 485-487): the Perl API and the Torque wrappers on it, the PAM modules (pyslurm's build
# packages come with the pyslurm cases).
PACKAGES+=(libslurm-perl libslurmdb-perl slurm-wlm-torque libpam-slurm libpam-slurm-adopt)
# The conformance targets' multi-node mode (`up.sh --nodes N`) builds network namespaces, a bridge and veths with ip.
PACKAGES+=(iproute2)
# pyslurm 22.5.3 is built from the vendored tarball and its tests run on both targets (conformance cases 491/492).
PACKAGES+=(python3-dev cython3 python3-pytest)
# SchedMD's python testsuite for 22.05 (conformance/schedmd/run.sh) runs under Debian's pytest and needs pexpect and py.
PACKAGES+=(python3-pexpect python3-py)
# pamtester drives pam_slurm and pam_slurm_adopt on the shim (compat-cli/tests/cluster_pam.rs, conformance case 495).
PACKAGES+=(pamtester)
# MPI (issue 33): the PMIx server of pmix-plugin builds on OpenPMIx (libpmix-dev); the MPI cases and benchmark build
# conformance/mpi/ with Open MPI and MPICH and run them on both targets.
PACKAGES+=(libpmix-dev openmpi-bin libopenmpi-dev mpich libmpich-dev)
# Conformance case 514 runs submitit (from PyPI, conformance/submitit/setup.sh) in a venv of Debian's python3.
PACKAGES+=(python3-venv)
# Slurm's own PMI-2 client library: compat-cli/tests/srun_mpi.rs runs a libpmi2 client under srun --mpi=pmi2.
PACKAGES+=(libpmi2-0-dev)
# The controller's job history store (controller/src/history) links Debian's SQLite through rusqlite.
PACKAGES+=(libsqlite3-dev)
# controller/tests/history_postgres.rs starts a PostgreSQL server of its own (initdb, pg_ctl) for the shared store.
PACKAGES+=(postgresql-15)

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
# Conformance case 520 compares `seff` with Slurm's contributed script, which Debian does not package: taken from
# Slurm's sources at the 22.05.8 tag (it runs on libslurmdb-perl above).
# GitHub is not reachable from every machine (package registries only): a local mirror of Slurm's repository is
# tried next, and without either the install is reported, not fatal, so every other test still runs (case 520 then
# differs on its seff lines and says why).
install_seff() {
    local url=https://raw.githubusercontent.com/SchedMD/slurm/slurm-22-05-8-1/contribs/seff/seff
    local mirror=${SLURM_GIT_MIRROR:-/work/.mirror/SchedMD+slurm/repo}
    if curl -fsSL --max-time 30 "$url" -o /usr/local/bin/seff.tmp 2>/dev/null ||
        { [[ -d $mirror ]] && git --git-dir="$mirror" show slurm-22-05-8-1:contribs/seff/seff >/usr/local/bin/seff.tmp 2>/dev/null; }; then
        chmod 755 /usr/local/bin/seff.tmp && mv /usr/local/bin/seff.tmp /usr/local/bin/seff
    else
        rm -f /usr/local/bin/seff.tmp
        echo "deps: Slurm's contribs/seff could not be fetched (no GitHub, no SLURM_GIT_MIRROR): case 520's seff oracle is missing" >&2
    fi
}
[[ -x /usr/local/bin/seff ]] || install_seff

#!/usr/bin/env bash
# Builds Spur, starts a local single-node cluster (spurctld + spurd, state in $SPUR_DEMO_DIR, default
# ./.spur-local), submits examples/hello.sh with sbatch, and shows squeue, scontrol show job and the job's output.
# No root needed. The daemons stop when the script ends unless --keep is given.
set -euo pipefail
cd "$(dirname "$0")"
repo=$PWD
keep=false
[[ ${1:-} == --keep ]] && keep=true

# Building needs these Debian packages' headers and libraries (libmunge, Slurm's headers for bindgen, OpenPMIx for
# pmix-plugin, SQLite for the job history store); .ci/deps.sh installs these and everything the tests need.
build_packages=(libmunge-dev libslurm-dev libclang-dev clang libpmix-dev libsqlite3-dev)
missing=()
for p in "${build_packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "quickstart: building Spur needs ${missing[*]}; as root: apt-get install ${missing[*]}" >&2
        exit 1
    fi
    echo "==> installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
fi

echo "==> building Spur"
cargo build --workspace --locked --quiet

demo=${SPUR_DEMO_DIR:-$repo/.spur-local}
rm -rf "$demo"
mkdir -p "$demo/bin" "$demo/state" "$demo/spool" "$demo/jobs"
for cmd in $("$repo/target/debug/spur" --list); do
    ln -sf "$repo/target/debug/spur" "$demo/bin/$cmd"
done
export PATH="$demo/bin:$PATH"

node=$(hostname -s)
cpus=$(nproc)
mem_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10 ))
port=${SPUR_DEMO_PORT:-16817}
export SLURM_CONF=$demo/slurm.conf
# No munged on a laptop: spurctld also listens on a Unix socket where the kernel vouches for each caller's uid
# (SO_PEERCRED), and the commands and spurd use it. Over TCP, spurctld still accepts only MUNGE or JWT.
# See docs/security.md.
export SPUR_LOCAL_SOCKET=$demo/spurctld.sock
cat > "$SLURM_CONF" <<CONF
# A one-node cluster in slurm.conf syntax: Spur reads the same file Slurm would.
ClusterName=spurdemo
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=256
StateSaveLocation=$demo/state
SlurmdSpoolDir=$demo/spool
MinJobAge=300
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

echo "==> starting spurctld and spurd (logs in $demo)"
"$repo/target/debug/spurctld" -f "$SLURM_CONF" >"$demo/spurctld.log" 2>&1 &
ctld=$!
"$repo/target/debug/spurd" -f "$SLURM_CONF" >"$demo/spurd.log" 2>&1 &
agent=$!
stop() {
    if ! $keep; then
        kill "$agent" "$ctld" 2>/dev/null || true
        wait "$agent" "$ctld" 2>/dev/null || true
    else
        echo "==> daemons keep running: export SLURM_CONF=$SLURM_CONF SPUR_LOCAL_SOCKET=$SPUR_LOCAL_SOCKET PATH=$demo/bin:\$PATH; kill $ctld $agent to stop"
    fi
}
trap stop EXIT

for _ in $(seq 100); do
    [[ $(sinfo -h -o %T 2>/dev/null) == idle ]] && break
    kill -0 "$ctld" 2>/dev/null || { cat "$demo/spurctld.log"; exit 1; }
    kill -0 "$agent" 2>/dev/null || { cat "$demo/spurd.log"; exit 1; }
    sleep 0.1
done
echo "\$ sinfo"; sinfo

cd "$demo/jobs"
echo; echo "\$ sbatch $repo/examples/hello.sh"
job=$(sbatch --parsable "$repo/examples/hello.sh")
echo "Submitted batch job $job"
echo; echo "\$ squeue"; squeue
for _ in $(seq 300); do
    case $(squeue -h -j "$job" -o %T 2>/dev/null) in PENDING|RUNNING|COMPLETING|CONFIGURING) sleep 0.1 ;; *) break ;; esac
done
echo; echo "\$ scontrol show job $job"; scontrol show job "$job"
echo "\$ cat hello-$job.out"; cat "hello-$job.out"

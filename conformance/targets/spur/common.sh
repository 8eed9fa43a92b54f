# shellcheck shell=bash disable=SC2034
# Shared helpers for the Spur target's up.sh and down.sh (sourced, not run). The process helpers (pid_is,
# live_pid_from, stop_pid, resolve_rundir, log, die) come from the Slurm target's common.sh; this file only sets
# what differs. Everything the scripts say goes to stderr: stdout is kept for `export`/`unset` lines.

# shellcheck source-path=SCRIPTDIR source=../slurm/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../slurm/common.sh"

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SLURM_TARGET_DIR=$(cd "$SCRIPT_DIR/../slurm" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/../../.." && pwd)
DEFAULT_RUNDIR=/tmp/spur-spur
MARKER=.spur-spur-rundir
# Binaries: target/debug of this repository unless SPUR_BIN_DIR says otherwise.
BIN_DIR=${SPUR_BIN_DIR:-${CARGO_TARGET_DIR:-$REPO_ROOT/target}/debug}
# The client names the multi-call `spur` binary answers to.
CLIENT_NAMES=(sbatch squeue scancel scontrol sinfo sprio srun salloc sstat sattach sbcast slurmrestd sacct sacctmgr sshare seff sreport strigger)

# A Spur process is named after its binary; the same check as for Slurm's daemons.
spur_pid() { live_pid_from "$1" "$2"; }

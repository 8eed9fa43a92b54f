#!/usr/bin/env bash
# Every command's --help and --usage as Slurm 22.05 prints them (srun, sbatch and salloc list the binding
# options for this cluster's TaskPlugin), the first of --help/--usage winning, and each command's error for a
# bad option value. sacct's help is case 534's (sacct needs accounting storage to print it).
. "$CASE_LIB"
show() { echo "\$ $*"; "$@" 2>&1; echo "rc=$?"; }
for cmd in srun sbatch salloc scontrol sstat sacctmgr sattach sbcast sinfo squeue scancel sprio sshare; do
    show "$cmd" --help
    show "$cmd" --usage
done
show srun --usage --help
show sinfo --usage --help
show squeue --usage --help
# Bad option values: the message and the exit code.
show srun --nodes=x true
show srun --ntasks=x true
show srun --cpus-per-task=0 true
show salloc --nodes=x true
show sbatch --time=bad --wrap=true
show sbatch --mem=x --wrap=true
show sbatch --begin=bad --wrap=true
show squeue -i x
show squeue --iterate=0
show sinfo -i x
show scancel --signal=BAD 1
show sprio -j x
show sstat -j
show sstat --frob
show scontrol -M
show scontrol --frob
show sattach --frob
show sbcast --frob
show sshare --frob

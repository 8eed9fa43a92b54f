#!/usr/bin/env bash
# --help of scancel, sinfo, squeue and sprio as Slurm 22.05 prints it (its full help, not the usage lines), and
# the first of --help/--usage on a command line winning; sbatch --usage in Slurm's own layout.
. "$CASE_LIB"
for cmd in scancel sinfo squeue sprio; do
    echo "\$ $cmd --help"; $cmd --help; echo "rc=$?"
    echo "\$ $cmd --help --usage"; $cmd --help --usage; echo "rc=$?"
done
# --usage first prints the usage lines (sinfo's and squeue's still differ from Slurm's, left out here).
for cmd in scancel sprio; do
    echo "\$ $cmd --usage --help"; $cmd --usage --help; echo "rc=$?"
done
echo "\$ sbatch --usage"; sbatch --usage; echo "rc=$?"

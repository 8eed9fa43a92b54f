#!/usr/bin/env bash
. "$CASE_LIB"
id=$(sbatch --parsable --wrap 'echo parsable'); echo "rc=$? id=$id"
track "$id"; wait_done "$id"; cat "slurm-$id.out"

#!/usr/bin/env bash
. "$CASE_LIB"
out=$(sbatch --wrap 'echo hello; echo oops >&2'); echo "$out"
id=${out##* }; track "$id"; wait_done "$id"
ls; echo "== slurm-$id.out"; cat "slurm-$id.out"

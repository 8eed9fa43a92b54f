#!/usr/bin/env bash
# Job submission, info, update, cancel, steps, nodes, partitions, config and Slurm errno values through the C API
# (libspur_compat/tests/c/api_c.c, built against <slurm/slurm.h> with -lslurm).
. "$CASE_LIB"
src=$CASE_DIR/../../../libspur_compat/tests/c/api_c.c
gcc -o "$CASE_TMP/api_c" "$src" -lslurm || exit 1
"$CASE_TMP/api_c"

#!/usr/bin/env bash
# Eight threads loading jobs, nodes and partitions and using hostlists at once through the C API.
. "$CASE_LIB"
src=$CASE_DIR/../../../libspur_compat/tests/c/threads_c.c
gcc -o "$CASE_TMP/threads_c" "$src" -lslurm -lpthread || exit 1
"$CASE_TMP/threads_c"

#!/usr/bin/env bash
# libslurm's hostlist and list helpers from a C program built against <slurm/slurm.h> with -lslurm; on the Spur
# target the same binary loads libspur_compat.so as libslurm.so.38 (targets/spur/up.sh puts it on LD_LIBRARY_PATH).
. "$CASE_LIB"
src=$CASE_DIR/../../../libspur_compat/tests/c/hostlist_c.c
gcc -o "$CASE_TMP/hostlist_c" "$src" -lslurm || exit 1
"$CASE_TMP/hostlist_c"

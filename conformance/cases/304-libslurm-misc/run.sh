#!/usr/bin/env bash
# The smaller C API calls: empty loads, node readiness, allocation lookup, batch script, stdio paths, key pairs,
# init markers (libspur_compat/tests/c/misc_c.c, built against <slurm/slurm.h> with -lslurm).
. "$CASE_LIB"
src=$CASE_DIR/../../../libspur_compat/tests/c/misc_c.c
gcc -o "$CASE_TMP/misc_c" "$src" -lslurm || exit 1
"$CASE_TMP/misc_c"

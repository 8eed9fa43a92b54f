#!/usr/bin/env bash
# stderr (libslurm's will-run and queueing lines) depends on when each scheduler answers; only stdout is compared.
. "$CASE_LIB"
WAIT_LIMIT=70
src=$CASE_DIR/../../../libspur_compat/tests/c/het_c.c
gcc -o "$CASE_TMP/het_c" "$src" -lslurm || exit 1
"$CASE_TMP/het_c" "$PWD" 2>/dev/null
echo "exit=$?"

#!/usr/bin/env bash
# slurm_step_ctx_create is not in libslurm.so.38, so every context is invalid; the node has no energy plugin.
. "$CASE_LIB"
src=$CASE_DIR/../../../libspur_compat/tests/c/launch_c.c
gcc -o "$CASE_TMP/launch_c" "$src" -lslurm || exit 1
"$CASE_TMP/launch_c" "$(hostname -s)" 2>"$CASE_TMP/stderr"
echo "exit $?"
echo "--- stderr"
cat "$CASE_TMP/stderr"

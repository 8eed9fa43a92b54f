#!/usr/bin/env bash
# Functions that work on the caller's memory only: every byte the slurmdb_init_* functions and
# slurm_step_launch_params_t_init leave, the front-end, topology and federation printers on records the program
# builds (libspur_compat/tests/c/records_c.c, built against <slurm/slurm.h> with -lslurm).
. "$CASE_LIB"
src=$CASE_DIR/../../../libspur_compat/tests/c/records_c.c
gcc -o "$CASE_TMP/records_c" "$src" -lslurm || exit 1
"$CASE_TMP/records_c"
echo "rc=$?"

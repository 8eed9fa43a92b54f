#!/usr/bin/env bash
# A running step's pids and task counts through the C API (libspur_compat/tests/c/step_stat_c.c, built against
# <slurm/slurm.h> with -lslurm).
. "$CASE_LIB"
src=$CASE_DIR/../../../libspur_compat/tests/c/step_stat_c.c
gcc -o "$CASE_TMP/step_stat_c" "$src" -lslurm || exit 1
a=$(submit -o /dev/null --wrap 'srun -n1 bash -c "touch step-started; exec sleep 300"'); wait_state "$a" RUNNING
while [[ ! -e step-started ]]; do sleep 0.1; done; sleep 0.5
"$CASE_TMP/step_stat_c" "$a"
echo "rc=$?"
scancel "$a"; wait_done "$a"

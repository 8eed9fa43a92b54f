#!/usr/bin/env bash
# Controller-answered calls through the C API (libspur_compat/tests/c/jobctl_c.c, built against <slurm/slurm.h>
# with -lslurm): accounting cache and federation without slurmdbd, burst buffer status, slurm_load_job_prio,
# slurm_fetch_token, slurm_top_job's codes, slurm_job_step_layout_get of the batch step and a two-task srun step,
# slurm_suspend2/slurm_resume2 with their codes.
. "$CASE_LIB"
src=$CASE_DIR/../../../libspur_compat/tests/c/jobctl_c.c
gcc -o "$CASE_TMP/jobctl_c" "$src" -lslurm || exit 1
a=$(submit -n2 -o /dev/null --wrap 'srun -n2 sleep 300'); wait_state "$a" RUNNING
while ! scontrol show step "$a.0" >/dev/null 2>&1; do sleep 0.2; done
h=$(submit -H --wrap true)
"$CASE_TMP/jobctl_c" "$a" "$h"
echo "rc=$?"

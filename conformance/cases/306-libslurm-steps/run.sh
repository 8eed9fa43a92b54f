#!/usr/bin/env bash
# A running srun step listed and cancelled through the C API (slurm_get_job_steps, slurm_kill_job_step).
. "$CASE_LIB"
src=$CASE_DIR/../../../libspur_compat/tests/c/steps_c.c
gcc -o "$CASE_TMP/steps_c" "$src" -lslurm || exit 1
a=$(submit -o steps.out "$CASE_DIR/../161-scancel-step/job.sh"); wait_state "$a" RUNNING
while ! scontrol show step "$a.0" >/dev/null 2>&1; do sleep 0.2; done
# As in case 161: killed before srun hears the launch completed, Slurm's srun adds an "aborted before step
# completely launched" line, so wait for the task to run first.
while [[ ! -e step-started ]]; do sleep 0.1; done; sleep 0.5
"$CASE_TMP/steps_c" "$a"
wait_done "$a"
# srun's line and slurmstepd's forwarded one race in Slurm: compare them in sorted order.
sort steps.out

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -o step.out "$CASE_DIR/job.sh"); wait_state "$a" RUNNING
while ! scontrol show step "$a.0" >/dev/null 2>&1; do sleep 0.2; done
# Cancelled while srun is still launching, Slurm's srun adds "aborted before step completely launched": wait
# until the task runs, and a little longer for srun to hear that the launch completed.
while [[ ! -e step-started ]]; do sleep 0.1; done; sleep 0.5
scancel "$a.0"; echo "rc=$?"
wait_done "$a"
# srun's line and slurmstepd's forwarded one race in Slurm: compare them in sorted order.
sort step.out; fields "$a" JobState ExitCode
scancel "$a.7"; echo "rc=$?"

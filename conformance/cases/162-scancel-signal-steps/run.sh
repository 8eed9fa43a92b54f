#!/usr/bin/env bash
. "$CASE_LIB"
# Without -b or -f, scancel -s signals the job's steps only: the step's task gets USR1, the batch shell does not.
a=$(submit -o sig.out "$CASE_DIR/job.sh"); wait_state "$a" RUNNING
while [[ ! -e step-ready ]]; do sleep 0.1; done; sleep 0.5
scancel -s USR1 "$a"; echo "rc=$?"
while [[ ! -e shell-done ]]; do sleep 0.1; done
squeue -h -j "$a" -o %T
touch release; wait_done "$a"
sort sig.out; fields "$a" JobState ExitCode
# A batch job without steps is left alone: the signal goes nowhere and the job keeps running.
b=$(submit -o nostep.out "$CASE_DIR/nostep.sh")
wait_state "$b" RUNNING; while [[ ! -e ready2 ]]; do sleep 0.1; done
scancel -s USR1 "$b"; echo "rc=$?"; sleep 1
squeue -h -j "$b" -o %T
touch release2; wait_done "$b"
cat nostep.out; fields "$b" JobState ExitCode

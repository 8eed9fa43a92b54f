#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -n2 -o sig.out "$CASE_DIR/job.sh"); wait_state "$a" RUNNING
while [[ ! -e ready0 || ! -e ready1 ]]; do sleep 0.1; done; sleep 0.5
scancel -s USR1 "$a.1"; echo "rc=$?"
sleep 1
touch release; wait_done "$a"
# A task whose `sleep` the signal also reaches makes bash print "User defined signal 1"; whether it is in a
# sleep at that instant is timing (Slurm printed it once or twice), so those lines are left out.
sort sig.out | grep -v '^User defined signal 1$'; fields "$a" JobState ExitCode
scancel -s USR1 "$a.7"; echo "rc=$?"

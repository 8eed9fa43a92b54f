#!/usr/bin/env bash
. "$CASE_LIB"
# Slurm gives heterogeneous jobs their reason only in its backfill cycle (bf_interval, 30 s by default).
WAIT_LIMIT=70
a=$(submit -n1 -t 5 -o /dev/null --wrap 'sleep 60' : -n1 -t 5)
track $((a + 1))
wait_reason "$a" Resources
wait_reason $((a + 1)) Resources
sleep 2
squeue -j "$a" -o '%i|%T|%r|%D|%C'
scancel "$a"; echo "scancel rc=$?"
wait_done "$a" $((a + 1))
for id in "$a" $((a + 1)); do fields "$id" JobState Reason ExitCode; done

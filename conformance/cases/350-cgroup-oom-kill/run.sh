#!/usr/bin/env bash
. "$CASE_LIB"
# The pipe's reader holds 200 MB: the kernel kills it at 50 MB, and the script goes on to exit 0.
a=$(submit --mem=50M -o oom.out --wrap 'head -c 200M /dev/zero | tail; echo after $?')
b=$(submit --mem=100M -o ok.out --wrap 'head -c 20M /dev/zero | tail | wc -c | sed "s/^20971520$/20 MiB/"')
wait_done "$a" "$b"
fields "$a" JobState Reason ExitCode
fields "$b" JobState Reason ExitCode
squeue -h -t all -j "$a,$b" -S i -o '%t %T %r'
# bash's own "line N: PID Killed" lines name the spool path: counted, not compared.
grep -c Killed oom.out
grep -v 'slurm_script: line' oom.out
cat ok.out

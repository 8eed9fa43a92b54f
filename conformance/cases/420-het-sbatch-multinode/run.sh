#!/usr/bin/env bash
. "$CASE_LIB"
# Slurm starts heterogeneous jobs only in its backfill cycle (bf_interval, 30 s by default).
WAIT_LIMIT=70
a=$(submit -t 5 -J het -o het.out --wrap 'env > env.txt; sleep 300' : -N2 -n2)
b=$((a + 1))
track "$b"
wait_state "$a" RUNNING
for _ in $(seq 50); do [[ -s env.txt ]] && break; sleep 0.2; done
squeue -j "$a" -o '%i|%A|%F|%j|%T|%D|%N|%l'
squeue -j "$b" -o '%i|%A|%T|%N'
squeue -j "$a" -O 'JobID:8,HetJobId:8,HetJobIdSet:10,HetJobOffset:6,JobArrayID:8'
scontrol show job "$a" | grep -E '^JobId=|^   (HetJobIdSet|JobState|NodeList|NumNodes|TRES|StdOut)='
echo "records for the component: $(scontrol show job "$b" | grep -c '^JobId=')"
echo "records for $a+0: $(scontrol show job "$a+0" | grep -c '^JobId=') $a+1: $(scontrol show job "$a+1" | grep '^JobId=' | cut -d' ' -f1)"
fields "$b" HetJobId HetJobOffset HetJobIdSet JobName TimeLimit BatchFlag
slurm_env env.txt | grep -E '_(HET|PACK)_|_SIZE=|^SLURM_(JOB_ID|JOB_NODELIST|NTASKS|CPUS_PER_TASK)='
scancel "$a+1"; echo "scancel component rc=$?"
for _ in $(seq 50); do [[ $(field "$b" JobState) == CANCELLED ]] && break; sleep 0.2; done
fields "$a" JobState
fields "$b" JobState ExitCode
scancel "$a"; echo "scancel leader rc=$?"
wait_done "$a"
fields "$a" JobState ExitCode

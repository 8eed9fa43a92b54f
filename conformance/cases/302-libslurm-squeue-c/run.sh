#!/usr/bin/env bash
# "squeue in C": every field of job_info_t for two pending jobs, as slurm_load_jobs returns them (fields that
# differ per run or cluster, such as ids, times and paths, are left out with --stable).
. "$CASE_LIB"
src=$CASE_DIR/../../../libspur_compat/tests/c/squeue_c.c
gcc -o "$CASE_TMP/squeue_c" "$src" -lslurm || exit 1
a=$(submit -H -J cheld --time=17 --wrap 'sleep 30')
b=$(submit -H -J ctwo -n 2 --time=3 -o out-%j.txt --wrap 'sleep 30')
"$CASE_TMP/squeue_c" --stable "$a" "$b"

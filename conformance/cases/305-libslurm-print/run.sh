#!/usr/bin/env bash
# slurm_print_job_info_msg and slurm_print_partition_info_msg: what scontrol show prints, through the C API
# (libspur_compat/tests/c/print_c.c, built against <slurm/slurm.h> with -lslurm). Left out: the one-liner (real
# Slurm's sprint says MinMemoryNode there for a per-CPU request), AllocNode (slurmctld names the submit host
# from the connection, `localhost` here) and the node table (this machine's load and free memory).
. "$CASE_LIB"
src=$CASE_DIR/../../../libspur_compat/tests/c/print_c.c
gcc -o "$CASE_TMP/print_c" "$src" -lslurm || exit 1
a=$(submit -H -J pheld --wrap 'echo hi')
"$CASE_TMP/print_c" "$a" | sed -e '/^--- one-liner/,/^--- partitions/d' -e '/^--- nodes/,$d' -e 's/AllocNode:Sid=[^ ]*//'

#!/usr/bin/env bash
# Partition, node, step and notify administration through the C API (admin_c.c), against a partition holding a
# held job and a running job with an srun step.
. "$CASE_LIB"
trap '_cleanup_jobs; for p in p410 p410b; do scontrol delete partition=$p >/dev/null 2>&1; done' EXIT
src=$CASE_DIR/../../../libspur_compat/tests/c/admin_c.c
gcc -o "$CASE_TMP/admin_c" "$src" -lslurm || exit 1
scontrol create partitionname=p410; echo "rc=$?"
held=$(submit -p p410 --hold --wrap 'sleep 1'); wait_state "$held" PENDING
a=$(submit -o steps.out "$CASE_DIR/../161-scancel-step/job.sh"); wait_state "$a" RUNNING
while ! scontrol show step "$a.0" >/dev/null 2>&1; do sleep 0.2; done
"$CASE_TMP/admin_c" "$(hostname -s)" "$a" "$held" 2>/dev/null

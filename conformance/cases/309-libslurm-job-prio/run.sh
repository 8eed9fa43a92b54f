#!/usr/bin/env bash
# The factors sprio shows, through the C API (libspur_compat/tests/c/prio_c.c, built against <slurm/slurm.h> with
# -lslurm): pending jobs of both partitions, one with a nice value; held jobs are not listed.
. "$CASE_LIB"
src=$CASE_DIR/../../../libspur_compat/tests/c/prio_c.c
gcc -o "$CASE_TMP/prio_c" "$src" -lslurm || exit 1
# The node's two CPUs are taken, so everything after waits; in `high`, so that nothing preempts it.
blocker=$(submit -p high -n2 -t 5 --wrap "sleep 300")
wait_state "$blocker" RUNNING
a=$(submit -n1 --wrap true)
b=$(submit -n2 -p high --wrap true)
c=$(submit -n1 --nice=100 --wrap true)
held=$(submit -H -n1 --wrap true)
"$CASE_TMP/prio_c" high "$a" "$b" "$c" "$held"
echo "rc=$?"

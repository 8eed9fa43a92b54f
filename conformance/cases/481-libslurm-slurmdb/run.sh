#!/usr/bin/env bash
# libspur_compat/tests/c/slurmdb_c.c, built against <slurm/slurmdb.h> with -lslurm, reads the accounting of two
# finished jobs (one with an srun step, one that exited 3) and the QOS, account and user this case makes.
. "$CASE_LIB"
trap 'sacctmgr -i delete account c481acct >/dev/null 2>&1; sacctmgr -i delete qos c481q >/dev/null 2>&1; _cleanup_jobs' EXIT
src=$CASE_DIR/../../../libspur_compat/tests/c/slurmdb_c.c
gcc -o "$CASE_TMP/slurmdb_c" "$src" -lslurm || exit 1
sacctmgr -i add qos c481q Description=c481 Priority=7 MaxWall=1:00:00 MaxJobsPerUser=2 MaxSubmitJobsPerUser=3 GrpJobs=5 GrpTRES=cpu=4,mem=2G MaxTRESPerJob=node=1 GraceTime=30 Flags=DenyOnLimit PreemptMode=requeue >/dev/null
sacctmgr -i add account c481acct Description=c481 Organization=c481 >/dev/null
sacctmgr -i add user root Account=c481acct QOS=normal,c481q DefaultQOS=normal MaxJobs=4 GrpTRES=cpu=2 >/dev/null
a=$(submit -J c481a -o /dev/null -n1 --wrap 'srun sleep 1')
b=$(submit -J c481b -o /dev/null -n1 --wrap 'sleep 1; exit 3')
wait_done "$a" "$b"
wait_acct "$a" "$b"
"$CASE_TMP/slurmdb_c" "$a" "$b" c481q c481acct
echo "rc=$?"

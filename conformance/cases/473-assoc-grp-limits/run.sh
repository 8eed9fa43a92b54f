#!/usr/bin/env bash
. "$CASE_LIB"
cleanup() {
    _cleanup_jobs
    sacctmgr -i delete user root account=c473sub,c473 >/dev/null 2>&1
    sacctmgr -i delete account c473sub,c473 >/dev/null 2>&1
}
trap cleanup EXIT
limits() {
    sacctmgr -n -P show assoc where account=c473,c473sub \
        format=account,user,grpjobs,grptres,maxjobs,maxsubmit,maxtres,maxwall | sort
}
sacctmgr -i add account c473 GrpJobs=1 >/dev/null
sacctmgr -i add account c473sub parent=c473 >/dev/null
sacctmgr -i add user root account=c473,c473sub >/dev/null
limits
# GrpJobs: one running job under the account, its sub-account's included; the next waits.
a=$(submit -A c473sub -o /dev/null --wrap 'sleep 120')
wait_state "$a" RUNNING
b=$(submit -A c473 -o /dev/null --wrap true)
wait_reason "$b" AssocGrpJobsLimit
squeue -h -j "$a,$b" -o "%T %r" --sort=i
scancel "$a" "$b"
wait_done "$a" "$b"
# GrpTRES: TRES by TRES; GrpJobs=-1 clears.
sacctmgr -i modify account c473 set GrpJobs=-1 GrpTRES=cpu=1 >/dev/null
limits
a=$(submit -A c473 -o /dev/null --wrap 'sleep 120')
wait_state "$a" RUNNING
b=$(submit -A c473sub -o /dev/null --wrap true)
wait_reason "$b" AssocGrpCpuLimit
squeue -h -j "$a,$b" -o "%T %r" --sort=i
scancel "$a" "$b"
wait_done "$a" "$b"
sacctmgr -i modify account c473 set GrpTRES=cpu=-1,node=4 >/dev/null
limits
sacctmgr -i modify account c473 set GrpTRES=node=-1,mem=1500 >/dev/null
limits
# Memory: each job gets DefMemPerCPU (1024 MB).
a=$(submit -A c473 -o /dev/null --wrap 'sleep 120')
wait_state "$a" RUNNING
b=$(submit -A c473sub -o /dev/null --wrap true)
wait_reason "$b" AssocGrpMemLimit
squeue -h -j "$a,$b" -o "%T %r" --sort=i
scancel "$a" "$b"
wait_done "$a" "$b"
# MaxTRES and MaxWall of the account hold for the user under it, whose rows show them.
sacctmgr -i modify account c473 set GrpTRES=mem=-1 MaxTRES=cpu=1,mem=500 MaxWall=5 MaxJobs=3 >/dev/null
limits
c=$(submit -A c473 -n 2 --mem=100 -o /dev/null --wrap true)
wait_reason "$c" AssocMaxCpuPerJobLimit
d=$(submit -A c473 -t 7 --mem=100 -o /dev/null --wrap true)
wait_reason "$d" AssocMaxWallDurationPerJobLimit
m=$(submit -A c473 --mem=600 -o /dev/null --wrap true)
wait_reason "$m" AssocMaxMemPerJob
e=$(submit -A c473 --hold --mem=100 -o /dev/null --wrap true)
squeue -h -j "$c,$d,$m,$e" -o "%T %r %l" --sort=i
# The user's own limit wins over the account's.
sacctmgr -i modify user root where account=c473 set MaxWall=10 >/dev/null
f=$(submit -A c473 --hold --mem=100 -o /dev/null --wrap true)
field "$f" TimeLimit
limits

#!/usr/bin/env bash
. "$CASE_LIB"
q() { echo "\$ sacctmgr $*"; sacctmgr "$@"; echo "rc=$?"; }
trap 'sacctmgr -i delete qos c436hi,c436lo,c436mid >/dev/null 2>&1' EXIT
q -i add qos c436hi priority=100 preempt=normal
q -i add qos c436hi priority=100
q -i add qos c436lo,c436mid Description=foo MaxWall=1:00:00 MaxTRESPerJob=cpu=2 MaxJobsPerUser=2 MaxSubmitJobsPerUser=3 GrpTRES=cpu=4 GrpJobs=5 UsageFactor=2 GraceTime=30 PreemptMode=cancel Flags=DenyOnLimit
q show qos format=Name,Priority,Preempt where name=normal,c436hi,c436lo,c436mid
q -P show qos c436lo
q show qos c436hi,c436mid
q -i modify qos where name=c436hi set preempt=c436lo,c436mid preemptmode=requeue
q -i modify qos c436hi set priority=200 preempt+=normal
q -n -p show qos c436hi format=name,priority,preempt,preemptmode,gracetime
q -i modify qos c436nosuch set priority=200
q -i delete qos c436mid
q -P show qos c436hi format=Name,Preempt
q -i delete qos c436nosuch
q -i delete qos c436hi,c436lo
q -n show qos format=name

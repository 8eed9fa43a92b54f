#!/usr/bin/env bash
. "$CASE_LIB"
cleanup() {
    _cleanup_jobs
    sacctmgr -i modify user root set qos-=c470a,c470b MaxJobs=-1 >/dev/null 2>&1
    sacctmgr -i delete qos c470a,c470b >/dev/null 2>&1
}
trap cleanup EXIT
sacctmgr -i add qos c470a GrpJobs=1 >/dev/null
sacctmgr -i add qos c470b MaxTRESPerJob=cpu=1,node=1 >/dev/null
sacctmgr -i modify user root set qos+=c470a,c470b >/dev/null
# GrpJobs: one running job of the QOS, the next waits.
first=$(submit --qos=c470a -o /dev/null --wrap 'sleep 120')
wait_state "$first" RUNNING
second=$(submit --qos=c470a -o /dev/null --wrap true)
wait_reason "$second" QOSGrpJobsLimit
scancel "$first" "$second"
wait_done "$first" "$second"
# MaxTRESPerJob: over the CPU limit it waits; within it it runs. (A gres/gpu limit needs gres/gpu among
# slurmdbd's TRES, which this configuration does not track.)
cpus=$(submit --qos=c470b -n 2 -o /dev/null --wrap true)
wait_reason "$cpus" QOSMaxCpuPerJobLimit
ok=$(submit --qos=c470b -o /dev/null --wrap true)
wait_done "$ok"
squeue -h -j "$cpus" -o "%T %r"
scancel "$cpus"
wait_done "$cpus"
# An association's MaxJobs: root may run one job at a time.
sacctmgr -i modify user root set MaxJobs=1 >/dev/null
a=$(submit -o /dev/null --wrap 'sleep 120')
wait_state "$a" RUNNING
b=$(submit -o /dev/null --wrap true)
wait_reason "$b" AssocMaxJobsLimit
squeue -h -j "$a,$b" -o "%T %r" --sort=i
wait_acct "$ok"
sacct -n -X -j "$ok" -o State

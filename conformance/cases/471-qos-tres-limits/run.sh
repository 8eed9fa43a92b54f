#!/usr/bin/env bash
. "$CASE_LIB"
cleanup() {
    _cleanup_jobs
    sacctmgr -i modify user root set qos-=c471a,c471b >/dev/null 2>&1
    sacctmgr -i delete qos c471a,c471b >/dev/null 2>&1
}
trap cleanup EXIT
sacctmgr -i add qos c471a GrpTRES=cpu=1 >/dev/null
sacctmgr -i add qos c471b MaxTRESPerUser=cpu=1 >/dev/null
sacctmgr -i modify user root set qos+=c471a,c471b >/dev/null
for q in c471a c471b; do
    first=$(submit --qos=$q -o /dev/null --wrap 'while [ ! -e go ]; do sleep 0.2; done')
    wait_state "$first" RUNNING
    second=$(submit --qos=$q -o /dev/null --wrap true)
    case $q in
    c471a) wait_reason "$second" QOSGrpCpuLimit ;;
    c471b) wait_reason "$second" QOSMaxCpuPerUserLimit ;;
    esac
    squeue -h -j "$first,$second" -o "%T %r" --sort=i
    touch go
    wait_done "$first" "$second"
    rm -f go
    wait_acct "$second"
    sacct -n -X -j "$second" -o State
done

#!/usr/bin/env bash
. "$CASE_LIB"
cleanup() {
    _cleanup_jobs
    sacctmgr -i modify user root set qos-=c443 >/dev/null 2>&1
    sacctmgr -i delete qos c443 >/dev/null 2>&1
}
trap cleanup EXIT
sacctmgr -i add qos c443 MaxWall=10 MaxJobsPerUser=1 MaxSubmitJobsPerUser=3 >/dev/null
sacctmgr -i modify user root set qos+=c443 >/dev/null
long=$(submit --qos=c443 -t 20 -o /dev/null --wrap true)
wait_reason "$long" QOSMaxWallDurationPerJobLimit
first=$(submit --qos=c443 -t 5 -o /dev/null --wrap 'sleep 120')
wait_state "$first" RUNNING
second=$(submit --qos=c443 -t 5 -o /dev/null --wrap 'sleep 120')
wait_reason "$second" QOSMaxJobsPerUserLimit
squeue -h -j "$long,$first,$second" -o "%T %r" --sort=i
sbatch --qos=c443 -t 5 -o /dev/null --wrap true
echo "rc=$?"

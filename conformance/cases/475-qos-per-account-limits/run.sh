#!/usr/bin/env bash
. "$CASE_LIB"
cleanup() {
    _cleanup_jobs
    sacctmgr -i modify user root set qos-=c475 >/dev/null 2>&1
    sacctmgr -i delete user root account=c475b >/dev/null 2>&1
    sacctmgr -i delete account c475b >/dev/null 2>&1
    sacctmgr -i delete qos c475 >/dev/null 2>&1
}
trap cleanup EXIT
sacctmgr -i add qos c475 MaxJobsPerAccount=1 MaxSubmitJobsPerAccount=2
sacctmgr -i add account c475b >/dev/null
sacctmgr -i add user root account=c475b >/dev/null
sacctmgr -i modify user root set qos+=c475 >/dev/null
sacctmgr -n -P show qos c475 format=name,maxjobspa,maxsubmitpa,maxtrespa
# One running job of the QOS per account: root's second waits, c475b's runs.
a=$(submit --qos=c475 -o /dev/null --wrap 'sleep 120')
wait_state "$a" RUNNING
b=$(submit --qos=c475 -o /dev/null --wrap true)
wait_reason "$b" MaxJobsPerAccount
c=$(submit --qos=c475 -A c475b -o /dev/null --wrap 'sleep 120')
wait_state "$c" RUNNING
# Two jobs of the QOS per account, waiting or running: root's third is refused.
sbatch --qos=c475 -o /dev/null --wrap true 2>&1
echo "rc=$?"
squeue -h -j "$a,$b,$c" -o "%T %r %a" --sort=i
scancel "$a" "$b" "$c"
wait_done "$a" "$b" "$c"
# MaxTRESPerAccount: one CPU among each account's running jobs of the QOS.
sacctmgr -i modify qos c475 set MaxJobsPerAccount=-1 MaxSubmitJobsPerAccount=-1 MaxTRESPerAccount=cpu=1 >/dev/null
sacctmgr -n -P show qos c475 format=name,maxjobspa,maxsubmitpa,maxtrespa
a=$(submit --qos=c475 -o /dev/null --wrap 'sleep 120')
wait_state "$a" RUNNING
b=$(submit --qos=c475 -o /dev/null --wrap true)
wait_reason "$b" MaxCpuPerAccount
squeue -h -j "$a,$b" -o "%T %r" --sort=i

#!/usr/bin/env bash
. "$CASE_LIB"
cleanup() {
    _cleanup_jobs
    sacctmgr -i modify user root set qos-=c472 MaxSubmitJobs=-1 >/dev/null 2>&1
    sacctmgr -i delete user root account=c472 >/dev/null 2>&1
    sacctmgr -i delete account c472 >/dev/null 2>&1
    sacctmgr -i delete qos c472 >/dev/null 2>&1
}
trap cleanup EXIT
refused() {
    sbatch "$@" 2>&1
    echo "rc=$?"
}
# GrpSubmitJobs of a QOS: one job of it waiting or running at a time, held ones included.
sacctmgr -i add qos c472 GrpSubmitJobs=1 >/dev/null
sacctmgr -i modify user root set qos+=c472 >/dev/null
q=$(submit --hold --qos=c472 -o /dev/null --wrap true)
refused --hold --qos=c472 -o /dev/null --wrap true
# MaxSubmitJobs of root's association: its two jobs, of any QOS, fill it.
sacctmgr -i modify user root set MaxSubmitJobs=2 >/dev/null
plain=$(submit --hold -o /dev/null --wrap true)
refused --hold -o /dev/null --wrap true
sacctmgr -i modify user root set MaxSubmitJobs=-1 >/dev/null
# GrpSubmitJobs of an account counts every job under it.
sacctmgr -i add account c472 GrpSubmitJobs=1 >/dev/null
sacctmgr -i add user root account=c472 >/dev/null
in_account=$(submit --hold -A c472 -o /dev/null --wrap true)
refused --hold -A c472 -o /dev/null --wrap true
# An account's MaxSubmitJobs holds for each user under it without one of their own.
sacctmgr -i modify account c472 set GrpSubmitJobs=-1 MaxSubmitJobs=1 >/dev/null
refused --hold -A c472 -o /dev/null --wrap true
# A job that ends makes room.
scancel "$q"
wait_done "$q"
again=$(submit --hold --qos=c472 -o /dev/null --wrap true)
squeue -h -j "$plain,$in_account,$again" -o "%T %r" --sort=i

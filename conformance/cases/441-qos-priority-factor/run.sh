#!/usr/bin/env bash
. "$CASE_LIB"
cleanup() {
    _cleanup_jobs
    sacctmgr -i modify user root set qos-=c441hi,c441lo >/dev/null 2>&1
    sacctmgr -i delete qos c441hi,c441lo >/dev/null 2>&1
}
trap cleanup EXIT
sacctmgr -i add qos c441hi priority=200 >/dev/null
sacctmgr -i add qos c441lo priority=50 >/dev/null
sacctmgr -i modify user root set qos+=c441hi,c441lo >/dev/null
# A job that fills the node keeps the others pending for sprio.
block=$(submit --exclusive -o /dev/null --wrap 'sleep 120')
wait_state "$block" RUNNING
hi=$(submit --qos=c441hi -o /dev/null --wrap true)
lo=$(submit --qos=c441lo -o /dev/null --wrap true)
no=$(submit -o /dev/null --wrap true)
wait_state "$no" PENDING
sprio -h -j "$hi,$lo,$no" -o "%.8Q %q"
squeue -h -j "$hi,$lo,$no" -o "%q %p" --sort=i | sed 's/ 0\.[0-9]*$/ P/'

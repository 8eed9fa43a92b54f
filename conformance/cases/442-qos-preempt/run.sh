#!/usr/bin/env bash
. "$CASE_LIB"
cleanup() {
    _cleanup_jobs
    sacctmgr -i modify user root set qos-=c442hi,c442peer >/dev/null 2>&1
    sacctmgr -i delete qos c442hi,c442peer >/dev/null 2>&1
}
trap cleanup EXIT
sacctmgr -i add qos c442peer >/dev/null
sacctmgr -i add qos c442hi priority=10 preempt=normal >/dev/null
sacctmgr -i modify user root set qos+=c442hi,c442peer >/dev/null
victim=$(submit --exclusive --requeue -o /dev/null --wrap 'sleep 300')
wait_state "$victim" RUNNING
peer=$(submit --exclusive --qos=c442peer -o /dev/null --wrap 'sleep 300')
wait_reason "$peer" Resources
echo "peer waits: $(squeue -h -j "$victim,$peer" -o '%i %T' --sort=i | sed "s/^$victim/VICTIM/;s/^$peer/PEER/" | tr '\n' ' ')"
scancel "$peer"
urgent=$(submit --exclusive --qos=c442hi -o /dev/null --wrap 'sleep 300')
wait_state "$urgent" RUNNING
echo "urgent: $(squeue -h -j "$urgent" -o %T)"
fields "$victim" Restarts
squeue -h -j "$victim" -o %T

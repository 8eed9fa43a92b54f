#!/usr/bin/env bash
. "$CASE_LIB"
node=$(hostname -s)
fail=/tmp/spur-conformance-prolog-fail
resume() { rm -f "$fail"; scontrol update nodename="$node" state=resume 2>/dev/null; }
trap 'resume; _cleanup_jobs' EXIT
touch "$fail"
salloc -N1 -J c407 true 2>&1
echo "rc=$?"
id=$(squeue -h -n c407 -t all -o %i | sort -n | tail -n1); track "$id"
fields "$id" JobState Reason
sinfo -h -R -n "$node" -o '%E|%u'
scontrol update nodename="$node" state=resume
b=$(submit -J c407b -o /dev/null --wrap 'echo never')
wait_reason "$b" "launch failed requeued held"
fields "$b" JobState Reason Restarts BatchFlag ExitCode
sinfo -h -R -n "$node" -o '%E|%u'

#!/usr/bin/env bash
# sstat measures a step while it runs: the figures that do not depend on timing are compared as they are, the
# memory the task holds is checked against what it allocated.
. "$CASE_LIB"
a=$(submit -o out.txt "$CASE_DIR/job.sh"); wait_state "$a" RUNNING
while [[ ! -e ready ]]; do sleep 0.1; done; sleep 0.5
sstat -n -P -j "$a" -o JobID,NTasks,MaxRSSNode,MaxRSSTask,MinCPUNode,MinCPUTask,ReqCPUFreqMin,ConsumedEnergy
echo "rc=$?"
sstat -n -P -j "$a.0" -o MaxRSS --noconvert | awk '{print ($1 >= 40000000) ? "MaxRSS holds the 40 MB" : "MaxRSS too small: " $1}'
sstat -n -P -j "$a.0" -o MaxRSS | awk '{print ($1 ~ /^[0-9.]+[KMG]$/) ? "MaxRSS has a unit" : "MaxRSS: " $1}'
sstat -n -P -a -j "$a" -o JobID,NTasks,ReqCPUFreqGov
sstat -n -P -i -j "$a.0" | awk -F'|' '{print $1, $2, ($3 ~ /^[0-9]+(,[0-9]+)*$/) ? "pids" : "no pids: " $3}'
sstat -j "$a.batch" -o jobid%-5,ntasks%3,maxrssnode%-12
sstat -j "$a.7"; echo "rc=$?"
sstat -j "$a.extern" -n; echo "rc=$?"
sstat -j 4000000 -n; echo "rc=$?"
sstat -j "$a" -o nosuchfield; echo "rc=$?"
sstat -j x1; echo "rc=$?"
sstat; echo "rc=$?"
sstat -e | head -3
touch release; wait_done "$a"
cat out.txt
sstat -n -j "$a"; echo "rc=$?"

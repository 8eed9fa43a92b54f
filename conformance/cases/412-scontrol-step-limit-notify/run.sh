#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -o steps.out "$CASE_DIR/../161-scancel-step/job.sh"); wait_state "$a" RUNNING
while ! scontrol show step "$a.0" >/dev/null 2>&1; do sleep 0.2; done
p=$(submit --hold --wrap 'sleep 1'); wait_state "$p" PENDING
scontrol update stepid="$a.0" timelimit=7 2>&1; echo "rc=$?"
scontrol show step "$a.0" | grep -o 'TimeLimit=[^ ]*'
scontrol update stepid="$a" timelimit=1:30:00 2>&1; echo "rc=$?"
scontrol show step "$a.0" | grep -o 'TimeLimit=[^ ]*'
scontrol update stepid="$a.0" timelimit=unlimited 2>&1; echo "rc=$?"
scontrol show step "$a.0" | grep -o 'TimeLimit=[^ ]*'
scontrol update stepid="$a.7" timelimit=1 2>&1; echo "rc=$?"
scontrol update stepid=999999.0 timelimit=1 2>&1; echo "rc=$?"
scontrol update stepid="$p.0" timelimit=1 2>&1; echo "rc=$?"
scontrol update stepid="$a.0" timelimit=abc 2>&1; echo "rc=$?"
scontrol update stepid="$a.0" name=x 2>&1; echo "rc=$?"
su nobody -s /bin/bash -c "scontrol update stepid=$a.0 timelimit=5" 2>&1; echo "rc=$?"
scontrol notify "$p" hello 2>&1; echo "rc=$?"
scontrol notify 999999 hello 2>&1; echo "rc=$?"
su nobody -s /bin/bash -c "scontrol notify $a hello" 2>&1; echo "rc=$?"
scontrol notify "$a" hello 2>&1; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
printf '#!/bin/bash\ntrap "" INT\necho WAITING\nsleep 1000\n' >q.sh
chmod +x q.sh
# Runs srun in the background, signals it once its task is running, prints its exit and its stderr (the option
# dump and the launch lines aside; `Complete ... received` comes at a racy place in Slurm's output).
signalled() {
    local sig=$1
    shift
    srun "$@" >out 2>err &
    local pid=$! deadline=$((SECONDS + 30))
    until grep -q WAITING out 2>/dev/null || ((SECONDS >= deadline)); do sleep 0.2; done
    sleep 1
    kill "-$sig" "$pid"
    wait "$pid"
    echo "rc=$?"
    cat out
    grep -v -E 'srun: (defined options|end of defined|[a-z-]+ +: |-+ -+|jobid |launch/slurm: (launch_p|_task_start)|launching |route/|Complete StepId|job [0-9]+ (queued|has been))' err |
        sed -E 's/CANCELLED AT [0-9T:-]+/CANCELLED AT TIME/'
}
signalled INT --quit-on-interrupt ./q.sh
signalled INT -v --quit-on-interrupt ./q.sh
signalled TERM ./q.sh

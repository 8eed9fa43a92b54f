#!/usr/bin/env bash
# Slurm sets SLURM_RESTART_COUNT in a batch job's environment once the job has been restarted (SchedMD's
# test_job_requeue). Slurm holds a requeued job back by its requeue delay (BeginTime); StartTime=now lifts it.
. "$CASE_LIB"
out=$PWD/requeue.out
g=$(submit --requeue -o "$out" --wrap 'echo "run: RC=${SLURM_RESTART_COUNT-unset}"; sleep 30')
wait_state "$g" RUNNING
for _ in $(seq 50); do [[ -s $out ]] && break; sleep 0.2; done
cat "$out"
scontrol requeue "$g"
# The old run ends first (COMPLETING), then the job is PENDING with the requeue delay's BeginTime on both targets;
# StartTime=now lifts the delay only once it is pending, so wait for that.
for _ in $(seq 150); do
    [[ $(field "$g" JobState) == PENDING ]] && break
    sleep 0.2
done
scontrol update jobid="$g" StartTime=now >/dev/null 2>&1
wait_state "$g" RUNNING
for _ in $(seq 50); do grep -q RC=1 "$out" 2>/dev/null && break; sleep 0.2; done
cat "$out"
echo "$(field "$g" Restarts | sed 's/^/Restarts=/')"

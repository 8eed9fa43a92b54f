#!/usr/bin/env bash
# Slurm's man pages list input environment variables for squeue and sinfo; each stands in for an option unless the
# command line gives it. The layout options of the command line (-o, -O, -l, --start) beat SQUEUE_FORMAT, which
# beats SQUEUE_FORMAT2; SINFO_FORMAT gives way to -o, -s, -N and -R but not to -l. Bad values give the option's
# own error (an unknown state, sort letter or user).
. "$CASE_LIB"
r() { echo "\$ $*"; "$@" 2>&1; echo "rc=$?"; }
# The date line of -l.
undate() { sed -E 's/^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4}$/DATE/'; }
done_id=$(submit -J aa --wrap 'true')
held=$(submit -J bb --hold --begin=now+1hour --wrap 'sleep 100')
run=$(submit -J cc --wrap 'sleep 100')
wait_done "$done_id"
wait_state "$run" RUNNING
echo "done=$((done_id - done_id)) held=$((held - done_id)) run=$((run - done_id))"
# Default states, also for named jobs: a finished job is not listed without -t.
r squeue -h -j "$done_id" -o '%i %T'
r squeue -h -j "$done_id,$held" -o '%i %T'
r squeue -h -j "$done_id" -o '%i %T' -t all
r env SQUEUE_STATES=PD squeue -h -o '%i %T'
r env SQUEUE_STATES=all squeue -h -j "$done_id" -o '%i %T'
r env SQUEUE_STATES=bogus squeue -h -o '%i %T'
r env SQUEUE_STATES=PD squeue -h -o '%i %T' -t R
r env SQUEUE_FORMAT='%i %j' squeue -h
r env SQUEUE_FORMAT='%i %j' squeue -l -t PD | undate
r env SQUEUE_FORMAT='%i %j' squeue -h -o '%j'
r env SQUEUE_FORMAT2='jobid,name' squeue -h
r env SQUEUE_FORMAT2='jobid,name' SQUEUE_FORMAT='%j' squeue -h
r env SQUEUE_FORMAT2='jobid:6,name' squeue -h -O 'name:5'
r env SQUEUE_NAMES=bb squeue -h -o '%i %j'
r env SQUEUE_NAMES=bb squeue -h -o '%i %j' -n cc
r env SQUEUE_USERS=nosuchuser squeue -h
r env SQUEUE_USERS=root squeue -h -o '%i'
r env SQUEUE_ACCOUNT=nosuch squeue -h -o '%i'
r env SQUEUE_PARTITION=nosuch squeue -h -o '%i'
r env SQUEUE_PARTITION=debug squeue -h -o '%i'
r env SQUEUE_PARTITION=nosuch squeue -h -o '%i' -p debug
r env SQUEUE_QOS=normal squeue -h -o '%i'
r env SQUEUE_LICENSES=foo squeue -h -o '%i'
r env SQUEUE_LICENSES=foo squeue -h -o '%i' -p debug
r env SQUEUE_SORT=-i squeue -h -o '%i'
r env SQUEUE_SORT=-i squeue -h -o '%i' -S i
r env SQUEUE_SORT=bogus squeue -o '%i'
r squeue -h -o '%i' -S 'i,xq'
for v in SQUEUE_ALL SQUEUE_ARRAY SQUEUE_PRIORITY SQUEUE_LOCAL SQUEUE_FEDERATION SQUEUE_SIBLING; do
    r env "$v=" squeue -h -o '%i'
done
# Errors of the command line's own values.
r squeue -h -t bogus,PD
r squeue -h -O 'jobid,bogus:5'
r squeue -h -o '%i %T' -O 'jobid'
r squeue -h -O 'jobid' -o '%i'
r squeue -h -u nosuchuser,root -o '%i'
# Timestamps: SLURM_TIME_FORMAT (relative: today's times as hours only; a strftime format).
r env SLURM_TIME_FORMAT=relative squeue -h -o '%V' -j "$held" | sed -E 's/[0-9]{2}:[0-9]{2}:[0-9]{2}/HH:MM:SS/'
r env SLURM_TIME_FORMAT='%Y|%j' squeue -h -o '%V' -j "$held" | sed "s/$(date +%Y)|$(date +%j)/TODAY/"
r env SLURM_TIME_FORMAT='%Y|%j' scontrol show job "$held" | grep -o 'SubmitTime=[^ ]*' | sed "s/$(date +%Y)|$(date +%j)/TODAY/"
r env SLURM_TIME_FORMAT=standard squeue -h -o '%V' -j "$held" | sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}$/ISO/'
# sinfo.
r env SINFO_FORMAT='%P %a' sinfo
r env SINFO_FORMAT='%P %a' sinfo -s
r env SINFO_FORMAT='%P %a' sinfo -l | undate
r env SINFO_FORMAT='%P %a' sinfo -o '%P'
r env SINFO_FORMAT='%P %a' sinfo -N -h
r env SINFO_PARTITION=debug sinfo -h
r env SINFO_PARTITION=nosuch sinfo -h
r env SINFO_PARTITION=nosuch sinfo -h -p debug
r env SINFO_PARTITION=debug SINFO_ALL=1 sinfo -h
for v in SINFO_ALL SINFO_LOCAL SINFO_FEDERATION; do
    r env "$v=1" sinfo -h
done
r env SINFO_SORT=-P sinfo -h

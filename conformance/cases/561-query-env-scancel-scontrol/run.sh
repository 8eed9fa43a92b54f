#!/usr/bin/env bash
# scancel reads SCANCEL_* before its command line: filters (NAME, USER, PARTITION, STATE, ACCOUNT, QOS, WCKEY)
# select jobs as their options do, BATCH/FULL/VERBOSE take true/T/false/F (anything else is reported and
# ignored), and a bad SCANCEL_STATE stops it with its own message. scontrol, sacct and sprio read their flags.
. "$CASE_LIB"
r() { echo "\$ $*"; "$@" 2>&1; echo "rc=$?"; }
st() { squeue -h -o '%j %T' -t all -j "$(sort -u "$_JOBS_FILE" | paste -sd,)" | sort; }
a=$(submit -J aa --hold --wrap 'sleep 100')
b=$(submit -J bb --hold --wrap 'sleep 100')
c=$(submit -J cc --wrap 'sleep 100')
wait_state "$c" RUNNING
r env SCANCEL_NAME=nosuch scancel
r env SCANCEL_USER=root SCANCEL_NAME=nosuch scancel
r env SCANCEL_ACCOUNT=nosuch scancel
r env SCANCEL_QOS=NORMAL scancel
r env SCANCEL_WCKEY=w scancel
r env SCANCEL_PARTITION=nosuch scancel
r st
r env SCANCEL_STATE=bogus scancel "$a"
r scancel -t bogus "$a"
r env SCANCEL_STATE=bogus scancel -t PD -n nosuch
r env SCANCEL_BATCH=x SCANCEL_FULL=maybe scancel -n nosuch
r env SCANCEL_VERBOSE=bogus scancel -n nosuch
r env SCANCEL_VERBOSE=F scancel -n nosuch
r env SCANCEL_BATCH=false SCANCEL_FULL=F SCANCEL_HURRY=1 SCANCEL_CTLD=1 scancel -n nosuch
# The command line's name replaces the environment's.
r env SCANCEL_NAME=nosuch scancel -n aa
r env SCANCEL_STATE=R SCANCEL_USER=root SCANCEL_NAME=bb scancel
r st
r env SCANCEL_STATE=PD SCANCEL_USER=root SCANCEL_PARTITION=debug SCANCEL_NAME=bb scancel
wait_done "$a" "$b"
r st
r env SCANCEL_VERBOSE=T scancel "$c"
wait_done "$c"
r st
# scontrol's, sacct's and sprio's flags change nothing on a lone cluster without accounting or priorities.
for v in SCONTROL_ALL SCONTROL_LOCAL SCONTROL_FEDERATION SCONTROL_SIBLING SCONTROL_FUTURE; do
    r env "$v=1" scontrol show partition | head -n 1
done
for v in SACCT_LOCAL SACCT_FEDERATION; do
    r env "$v=1" sacct -X -n -o jobid
done
r env SACCT_FORMAT=jobid sacct -n
for v in SPRIO_LOCAL SPRIO_FEDERATION SPRIO_SIBLING; do
    r env "$v=1" sprio -h
done

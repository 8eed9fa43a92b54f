#!/usr/bin/env bash
# sprio -v prints its settings before the table (SchedMD's test_job_options.py::test_verbose); -vv adds the job and
# user ids the lists resolved to; -o and SPRIO_FORMAT show as format.
. "$CASE_LIB"
id=$(submit --hold --wrap 'sleep 1')
s() { echo "\$ sprio $*"; sprio "$@" | sed "s/\b$id\b/JOB/g"; echo "rc=${PIPESTATUS[0]}"; }
s --verbose -j "$id"
# -vv also turns on Slurm's plugin debug lines on stderr, which Spur has no plugins to print.
s -vv -j "$id" -u root 2>/dev/null
s -v -o '%i %Y' -p debug
SPRIO_FORMAT='%i' s -v -j

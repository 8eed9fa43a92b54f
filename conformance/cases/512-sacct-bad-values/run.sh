#!/usr/bin/env bash
# sacct refusing values: Slurm's messages and exit codes.
. "$CASE_LIB"
t() { echo "== $*"; sacct -n "$@"; echo "rc=$?"; }
t --units=X
t --units=
t -k bogus
t -K 0
t -i x
t -I 4-2
t -q nosuchqos_c512
t -M nosuchcluster_c512
t -S now -E now-1days
t -E junk
t -g nosuchgroup_c512
t -u nosuchuser_c512 -u root
t --whole-hetjob=maybe
t --whole-hetjob=no -S now-1minutes -j 1
t --uni=k -j 1
t -s bogus,CD
t -j 1.x
t --bogus
t -Z
t -o
t --name

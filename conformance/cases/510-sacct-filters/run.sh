#!/usr/bin/env bash
# sacct's selection options on finished jobs: -N, -q, -r, -A, -g, -a, -D, -X, -k/-K, -i/-I, windows with -s.
. "$CASE_LIB"
a=$(submit -J c510a -o /dev/null --wrap 'true')
b=$(submit -J c510b -o /dev/null -N1 -n2 --wrap 'srun true; exit 3')
wait_done "$a" "$b"
wait_acct "$a" "$b"
host=$(hostname -s)
q() { echo "== $*"; sacct -X -n -P -o JobName,State --name c510a,c510b "$@"; echo "rc=$?"; }
q -S now-10minutes
q -S now-10minutes -N "$host"
q -S now-10minutes -N nosuchnode_c510
q -S now-10minutes --nodelist="$host" -N nosuchnode_c510
q -S now-10minutes -q normal
q -S now-10minutes -r debug -r nosuchpart
q -S now-10minutes -A root,ROOT -A nosuchacct
q -S now-10minutes -g root
q -S now-10minutes -g 0 -g nosuchgroup_c510
q -S now-10minutes -a
q -S now-10minutes -D
q -S now-10minutes -I 2
q -S now-10minutes -I 1-1
q -S now-10minutes -i 1
q -S now-10minutes -i 2-4
q -S now-10minutes -k 1 -K 1000
q -S now-10minutes -x 1
q -S now-10minutes -s F
q -S now-10minutes -E now -s CD,F
q -S now-10minutes -s R
q -s CD -S 2020-01-01
q -S 2020-01-01 -E 2020-01-02
q -E now-1days
q -S now-10minutes -L
q -S now-10minutes -M all
q -S now-10minutes --local
q -S now-10minutes --federation
q -S now-10minutes -T
q -S now-10minutes -W '*'
echo "== steps"
sacct -n -P -o JobID,JobName,State -j "$b"
sacct -n -P -o JobID,JobName,State -j "$b" -X
sacct -n -P -o JobID,State -j "$b" -s CD
sacct -n -P -o JobID,State -j "$b" -s F
sacct -n -P -o JobID,State -j "$b" -N nosuchnode_c510

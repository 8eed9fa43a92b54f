#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -n1 -o a.out --wrap 'grep Cpus_allowed_list /proc/self/status; sleep 3')
wait_state "$a" RUNNING
b=$(submit -n1 -o b.out --wrap 'grep Cpus_allowed_list /proc/self/status')
c=$(submit -n2 -o c.out --wrap 'grep Cpus_allowed_list /proc/self/status')
wait_done "$a" "$b" "$c"
cat a.out b.out c.out

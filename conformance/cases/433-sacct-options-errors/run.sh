#!/usr/bin/env bash
. "$CASE_LIB"
sacct -e
echo "exit $?"
sacct -o jobid,bogus
echo "exit $?"
sacct -s bogus
echo "exit $?"
sacct -j abc
echo "exit $?"
sacct -u nosuchuser_c433
echo "exit $?"
sacct -S junk
echo "exit $?"
id=$(submit -J c433name -o /dev/null --wrap 'true')
wait_done "$id"
wait_acct "$id"
sacct -j "$id" -X -o jobname%3,jobid%5,stat%-12,exitc,node
sacct -j "$id" -X -S 2020-01-01 -E 2020-01-02 -n
echo "exit $?"
sacct -j "$id" -X -p -o jobid,state --delimiter=';'
sacct -j "$id" -X -n -P -o jobid,partition -r debug
sacct -j "$id" -X -n -P -o jobid,partition -r nosuchpart
sacct -j "$id" -X -n -P -o jobid,account -A root -D

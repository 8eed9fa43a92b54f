#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J c478a -o /dev/null --wrap 'true')
b=$(submit -J c478b -o /dev/null --wrap 'exit 2')
c=$(submit -J c478c -o /dev/null --wrap 'true')
wait_done "$a" "$b" "$c"
wait_acct "$a" "$b" "$c"
echo "repeated -j"
sacct -X -n -P -o JobID,JobName,State -j "$a" -j "$b" -j "$c"
echo "repeated -o"
sacct -X -n -P -o JobName -o State -j "$a"
echo "repeated --name and -s"
sacct -X -n -P -o JobName,State --name c478a --name c478b,c478c -s CD -s F -S now-10minutes -E now
echo "repeated -u"
sacct -X -n -P -o JobName -u nobody -u root --name c478a -S now-10minutes
echo "-u -1 after a name"
sacct -X -n -P -o JobName -u nobody -u -1 --name c478c -S now-10minutes
echo "-o with -l"
sacct -o JobID -l -j "$a"
echo "exit=$?"

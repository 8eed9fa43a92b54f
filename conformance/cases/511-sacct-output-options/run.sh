#!/usr/bin/env bash
# sacct's output options: layouts given more than once, widths, -n, -b, -l with -P, --units, --noconvert,
# --delimiter, -e/--helpformat and its aliases.
. "$CASE_LIB"
a=$(submit -J c511-a-long-job-name -o /dev/null --mem=100 --wrap 'true')
wait_done "$a"
wait_acct "$a"
s() { echo "== $*"; sacct -j "$a" -X "$@"; echo "rc=$?"; }
s -o JobID,JobName,State
s -o JobID%3,JobName%30,State%-5
s -o jobname%0,state
s -o JobName -n
s -p -P -o JobName,State
s -P -p -o JobName,State
s -p -o JobName,State --delimiter=,
s -P -o JobName,State --delimiter ''
s -b
s -b -o JobName
s -b -l -P -n
s -P -o ReqMem,AllocTRES,ReqTRES
s -P -o ReqMem,AllocTRES --units=K
s -P -o ReqMem,AllocTRES --units=G
s -P -o ReqMem,AllocTRES --noconvert
s -P -o ReqMem --units=M --noconvert
s -o JobName,JobName%4,JobID -P
s -T -o Start,End -P -n -S 2001-01-01 | sed 's/[0-9-]*T[0-9:]*/{T}/g'
s -o Partition,Account,QOS,Cluster -P
sacct --help-fields | head -3
sacct --helpformat | tail -2
sacct -e -o JobID | head -1
echo "== --fields alias"
sacct -j "$a" -X -n -P --fields=JobName
echo "== -o alias prefixes"
sacct -j "$a" -X -n -P -o jobn,sta,exitc

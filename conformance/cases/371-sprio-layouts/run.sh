#!/usr/bin/env bash
. "$CASE_LIB"
# The node's two CPUs are taken, so everything after waits.
# In `high`, the top tier, so that no job of these cases preempts it.
blocker=$(submit -p high -n2 -t 5 --wrap "sleep 300")
wait_state "$blocker" RUNNING
a=$(submit -n1 --wrap true)
b=$(submit -n2 --wrap true)
c=$(submit -n1 -p high --wrap true)
d=$(submit -n1 --nice=100 --wrap true)
held=$(submit -H -n1 --wrap true)
later=$(submit --begin=now+1hour -n1 --wrap true)
ids="$a,$b,$c,$d,$held,$later"
echo "== default (held and future jobs are not listed)"
sprio -j "$ids"; echo "rc=$?"
echo "== -l"
sprio -l -j "$ids"
echo "== -n"
sprio -n -j "$ids"
echo "== -n -l"
sprio -n -l -j "$ids"
echo "== -w"
sprio -w
echo "== -w -l"
sprio -w -l
echo "== -w -n"
sprio -w -n
echo "== -o"
sprio -j "$ids" -o "%.15i %r %.10Y %A %J %P %N %T %t %.10y %S %u %c"
echo "== -o with an unknown letter"
sprio -j "$a" -o "<%i|%x|%.3Y|%-5J|"
echo "== -h -p high"
sprio -h -j "$ids" -p high
echo "== -u"
sprio -u root -j "$ids"
echo "== -jID (attached)"
sprio -j"$b"
echo "== no match"
sprio -j "$held"; echo "rc=$?"
sprio -j "$ids" -p nosuch; echo "rc=$?"
echo "== -S"
sprio -j "$ids" -S -y -o "%.15i %.10Y"
sprio -h -j "$ids" -S r,-j -o "%.15i %r %J"
sprio -j "$ids" -S z; echo "rc=$?"
echo "== job priorities"
squeue -j "$a,$b,$c,$d" -o "%.18i %.10Q %.9P"

#!/usr/bin/env bash
. "$CASE_LIB"
ulimit -S -n 1000; ulimit -S -c 0; ulimit -S -s 8192
a=$(submit -o a.out --wrap 'ulimit -S -n; ulimit -S -c; ulimit -S -s')
# Without propagation the job has the node's limits, whatever they are: only "not the submitter's" is compared.
b=$(submit --propagate=NONE -o b.out --wrap '[ "$(ulimit -S -n)" != 1000 ] && echo "node nofile"')
c=$(submit --propagate=CORE -o c.out --wrap '[ "$(ulimit -S -n)" != 1000 ] && echo "node nofile"; ulimit -S -c')
d=$(submit --propagate -o d.out --wrap 'ulimit -S -n')
wait_done "$a"; wait_done "$b"; wait_done "$c"; wait_done "$d"
for f in a b c d; do echo "== $f"; cat "$f.out"; done
sbatch --propagate=BOGUS --wrap true; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
cat > steps.sh <<'SCRIPT'
#!/bin/bash
trap 'echo batch got USR1' USR1
task='trap "echo $0 got USR1; exit 3" USR1; echo $0 ready; while :; do sleep 0.1; done'
srun -n1 --overlap -J first bash -c "$task" first 2>first.err &
srun -n1 --overlap -J second bash -c "$task" second 2>second.err &
wait %1; echo "first rc=$?"
wait %2; echo "second rc=$?"
SCRIPT
id=$(submit -n2 -o steps.out steps.sh)
wait_state "$id" RUNNING
for _ in $(seq 100); do [ "$(grep -c ready steps.out 2>/dev/null)" = 2 ] && break; sleep 0.2; done
first=$(squeue -h -s -j "$id" -o "%i %j" | awk '$2=="first"{print $1}')
scancel -s USR1 "$first"
for _ in $(seq 100); do grep -q "first rc" steps.out && break; sleep 0.2; done
# Only the first step was signalled.
grep -c "got USR1" steps.out
scancel -s USR1 "$id"
wait_done "$id"
sort steps.out
cat first.err second.err 2>/dev/null | sed -E 's/[0-9]+\.[0-9]+/J.S/'

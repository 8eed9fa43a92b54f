#!/usr/bin/env bash
# sattach joins a step that already printed: it gets the recent output (both sides keep it), then what follows, and
# ends with the step. Lines of the two tasks interleave at random, so they are sorted.
. "$CASE_LIB"
a=$(submit -n2 -o out.txt "$CASE_DIR/job.sh"); wait_state "$a" RUNNING
while [[ ! -e ready-0 || ! -e ready-1 ]]; do sleep 0.1; done
sattach --layout "$a.0"; echo "rc=$?"
sattach "$a.7"; echo "rc=$?"
sattach 4000000.0; echo "rc=$?"
sattach "$a"; echo "rc=$?"
sattach "$a.x"; echo "rc=$?"
sattach --output-filter=z "$a.0"; echo "rc=$?"
sattach "$a.0" extra; echo "rc=$?"
sattach; echo "rc=$?"
: > att.out; : > filtered.out
sattach -l "$a.0" > att.out 2> att.err &
pid=$!
while [[ $(grep -c before att.out) -lt 2 ]]; do sleep 0.1; done
sattach --output-filter=1 "$a.0" > filtered.out 2> filtered.err &
filtered=$!
while [[ $(grep -c before filtered.out) -lt 1 ]]; do sleep 0.1; done
touch release
wait "$pid"; echo "sattach rc=$?"
sort att.out; sort att.err
wait "$filtered"; echo "filtered rc=$?"
cat filtered.out; sort filtered.err
wait_done "$a"
sort out.txt
sattach "$a.0"; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -o notify.out --wrap 'touch started; sleep 3; echo done'); wait_state "$a" RUNNING
while [[ ! -e started ]]; do sleep 0.1; done
scontrol notify "$a" hello from case 414 2>&1; echo "rc=$?"
wait_done "$a"
scontrol notify "$a" too late 2>&1; echo "rc=$?"
cat notify.out

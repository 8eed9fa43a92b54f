#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J st153 --wrap true); b=$(submit --begin=now+1hour -J st153 --wrap true)
scancel -t PENDING -n st153; echo "rc=$?"; wait_done "$a" "$b"
squeue -h -t all -j "$a,$b" -S i -o '%T'

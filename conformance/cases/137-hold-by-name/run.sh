#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --begin=now+1hour -J holdme137 --wrap true)
scontrol hold holdme137 ; echo "rc=$?"; squeue -h -j "$a" -o '%T %r'

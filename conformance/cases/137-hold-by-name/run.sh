#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --begin=now+1hour -J holdme137 --wrap true)
# Both systems show reason None until their first scheduling pass; wait for it so the output does not race.
wait_reason "$a" BeginTime
scontrol hold holdme137 ; echo "rc=$?"; squeue -h -j "$a" -o '%T %r'

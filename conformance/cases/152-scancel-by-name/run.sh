#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J cancel152 --wrap true); b=$(submit -H -J cancel152 --wrap true); c=$(submit -H -J keep152 --wrap true)
scancel -n cancel152; echo "rc=$?"; wait_done "$a" "$b"
squeue -h -t all -j "$a,$b,$c" -S i -o '%j %T'

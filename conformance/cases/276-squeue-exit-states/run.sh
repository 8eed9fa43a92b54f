#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --wrap 'exit 1'); b=$(submit --wrap true); c=$(submit -H --wrap true); scancel "$c"; wait_done "$a" "$b" "$c"
squeue -h -t all -j "$a,$b,$c" -S i -o '%i %t %T'

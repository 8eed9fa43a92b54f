#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J sf --wrap true); b=$(submit -J sf2 --wrap true); wait_done "$b"
squeue -h -t PD -j "$a,$b" -o '%i %t'; echo "--"; squeue -h -t CD -j "$a,$b" -o '%i %t'; echo "--"; squeue -h -t all -j "$a,$b" -S i -o '%i %t'

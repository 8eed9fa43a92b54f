#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J one --wrap true); b=$(submit -H -J two --wrap true)
squeue -h -j "$a,$b" -S i -o '%i %j %T %r'

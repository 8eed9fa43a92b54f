#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J left --time=5 --wrap true); b=$(submit -H -J nolimit --wrap true)
squeue -h -j "$a,$b" -S i -o '%j %l %L'

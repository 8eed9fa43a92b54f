#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J b181 --wrap true); b=$(submit -H -J a181 --wrap true)
squeue -h -j "$a,$b" -S j -o '%j'; echo --; squeue -h -j "$a,$b" -S -i -o '%j'

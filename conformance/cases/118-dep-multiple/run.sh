#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H --wrap true); b=$(submit -H --wrap true)
c=$(submit --dependency=afterok:$a:$b --wrap true); wait_reason "$c" Dependency; field "$c" Dependency
d=$(submit --dependency=afterok:$a,afterany:$b --wrap true); wait_reason "$d" Dependency; field "$d" Dependency
e=$(submit --dependency="afterok:$a?afterok:$b" --wrap true); wait_reason "$e" Dependency; field "$e" Dependency

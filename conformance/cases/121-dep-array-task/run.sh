#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H --array=1-2 --wrap true)
b=$(submit --dependency=afterok:${a}_1 --wrap true); wait_reason "$b" Dependency; field "$b" Dependency
c=$(submit --dependency=aftercorr:$a --wrap true); wait_reason "$c" Dependency; field "$c" Dependency

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H --wrap 'sleep 300'); b=$(submit --dependency=after:$a --wrap true)
wait_reason "$b" Dependency; fields "$b" Dependency

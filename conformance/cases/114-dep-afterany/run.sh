#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --wrap 'exit 2'); b=$(submit -o b.out --dependency=afterany:$a --wrap 'echo ran')
wait_done "$a" "$b"; cat b.out; field "$b" JobState

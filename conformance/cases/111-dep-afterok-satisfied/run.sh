#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -o a.out --wrap 'echo a'); b=$(submit -o b.out --dependency=afterok:$a --wrap 'echo b')
wait_done "$a" "$b"
cat a.out b.out; fields "$b" JobState Dependency

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -o a.out --wrap 'echo a'); b=$(submit -o b.out -d afterok:$a --wrap 'echo b'); c=$(submit -o c.out -d afterok:$b --wrap 'echo c')
wait_done "$a" "$b" "$c"; cat a.out b.out c.out

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --wrap true); wait_done "$a"
b=$(submit -o b.out --dependency=afterok:$a --wrap 'echo ran'); wait_done "$b"; cat b.out

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -o 'out-%j.txt' -e 'err-%j.txt' --wrap 'echo out; echo err >&2'); wait_done "$id"
ls; cat out-*.txt err-*.txt

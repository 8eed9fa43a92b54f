#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J refjob -n2 --time=5 -o 'refjob-%j.out' -e 'refjob-%j.err' --wrap 'echo done'); wait_done "$a"
scontrol show job "$a"

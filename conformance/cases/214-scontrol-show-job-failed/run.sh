#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J failing --time=10 --wrap 'exit 3'); wait_done "$a"
scontrol show job "$a"

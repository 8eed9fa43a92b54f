#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -o /dev/null --wrap 'echo gone'); wait_done "$id"
ls; field "$id" StdOut

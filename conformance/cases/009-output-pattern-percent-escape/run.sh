#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -o 'pct-%%-%j.out' --wrap 'echo x'); wait_done "$id"
ls

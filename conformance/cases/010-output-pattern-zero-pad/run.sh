#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -J pad -o 'pad-%5j.out' --wrap 'echo x'); wait_done "$id"
ls | sed 's/[0-9]/9/g'

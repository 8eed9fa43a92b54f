#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -J pat -o '%x.%u.%N.%n.%t.out' --wrap 'echo x'); wait_done "$id"
ls

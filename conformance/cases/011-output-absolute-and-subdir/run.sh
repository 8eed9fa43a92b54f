#!/usr/bin/env bash
. "$CASE_LIB"
mkdir logs
id=$(submit -o "$PWD/logs/abs-%j.out" -e logs/rel-%j.err --wrap 'echo out; echo err >&2'); wait_done "$id"
find logs -type f | sort; fields "$id" StdOut StdErr

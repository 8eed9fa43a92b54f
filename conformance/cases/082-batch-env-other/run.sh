#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -o env.out --wrap env); wait_done "$id"
grep -E '^(ENVIRONMENT|HOSTNAME|PWD|TMPDIR|HOME|USER|LOGNAME)=' env.out | sort

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -J fromcli -o cli-%j.out "$CASE_DIR/job.sh"); wait_done "$id"
ls; cat cli-*.out; field "$id" JobName

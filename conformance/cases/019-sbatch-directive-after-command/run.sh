#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit "$CASE_DIR/job.sh"); wait_done "$id"
ls; field "$id" JobName

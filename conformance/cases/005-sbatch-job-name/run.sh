#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -J my-name --wrap true); wait_done "$id"
squeue -h -j "$id" -t all -o '%j|%x' 2>&1
field "$id" JobName
ls

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H -J arr --array=1-3 --wrap true)
squeue -j "$id"

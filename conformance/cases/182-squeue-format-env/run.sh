#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J env182 --wrap true)
SQUEUE_FORMAT='%i %j %T' squeue -j "$a"
SQUEUE_FORMAT2='JobID,Name' squeue -j "$a"

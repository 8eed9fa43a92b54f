#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J st --wrap true)
squeue --start -j "$a"

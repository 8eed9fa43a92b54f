#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H --wrap true); b=$(submit -H --wrap true)
scontrol update JobId=$b Dependency=afterok:$a; echo "rc=$?"; field "$b" Dependency

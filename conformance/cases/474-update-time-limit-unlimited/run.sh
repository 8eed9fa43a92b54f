#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --time=10 -o /dev/null --wrap true)
scontrol update JobId="$id" TimeLimit=UNLIMITED; echo "rc=$?"
field "$id" TimeLimit
scontrol update JobId="$id" TimeLimit=5; echo "rc=$?"
field "$id" TimeLimit

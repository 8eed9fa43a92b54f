#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --wrap true)
scontrol update JobId=$id NoSuchField=1; echo "rc=$?"
scontrol update JobId=$id TimeLimit=bogus; echo "rc=$?"

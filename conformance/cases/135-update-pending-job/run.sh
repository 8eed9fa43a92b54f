#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H -J before --time=10 --wrap true)
scontrol update JobId=$id JobName=after TimeLimit=20 Comment=changed Nice=5; echo "rc=$?"
fields "$id" JobName TimeLimit Comment Nice

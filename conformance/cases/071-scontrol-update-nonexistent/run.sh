#!/usr/bin/env bash
. "$CASE_LIB"
scontrol update JobId=999999 TimeLimit=5; echo "rc=$?"
scontrol hold 999999; echo "rc=$?"
scontrol release 999999; echo "rc=$?"

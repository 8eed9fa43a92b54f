#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --wrap true)
scontrol requeue "$id"; echo "rc=$?"

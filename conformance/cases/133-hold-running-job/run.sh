#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --wrap 'sleep 300'); wait_state "$id" RUNNING
scontrol hold "$id"; echo "rc=$?"

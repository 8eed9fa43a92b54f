#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --no-requeue --wrap 'sleep 300'); wait_state "$id" RUNNING
scontrol requeue "$id"; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J running --time=10 --wrap 'sleep 300'); wait_state "$a" RUNNING
scontrol show job "$a"

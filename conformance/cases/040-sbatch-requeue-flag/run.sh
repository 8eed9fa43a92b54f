#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --requeue --wrap true); field "$id" Requeue
id=$(submit -H --no-requeue --wrap true); field "$id" Requeue

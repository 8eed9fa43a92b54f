#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --time=10 --time-min=5 --wrap true)
fields "$id" TimeLimit TimeMin

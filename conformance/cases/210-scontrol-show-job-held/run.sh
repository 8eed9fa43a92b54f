#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J showheld --time=10 --wrap true)
scontrol show job "$a"

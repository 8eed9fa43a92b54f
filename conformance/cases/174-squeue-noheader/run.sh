#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J nh --wrap true)
squeue -h -j "$a"

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --wrap true)
fields "$id" UserId GroupId
squeue -h -j "$id" -o '%u %g %U'

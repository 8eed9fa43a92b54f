#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --deadline=now+2hours --wrap true)
field "$id" Deadline | sed 's/[0-9]/9/g'

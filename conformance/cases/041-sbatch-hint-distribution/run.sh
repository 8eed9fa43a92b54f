#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H -n2 --distribution=cyclic --wrap true)
fields "$id" NumTasks

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H -p debug -N1 --ntasks-per-node=2 --wrap true)
fields "$id" Partition NumNodes NumTasks NtasksPerN:B:S:C ReqNodeList

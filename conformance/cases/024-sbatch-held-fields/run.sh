#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H -J fields --time=10 --mem=100M -n2 -c1 --nice=10 --no-requeue --wrap true)
fields "$id" JobName JobState Reason Nice TimeLimit NumTasks NumCPUs CPUs/Task MinMemoryNode Requeue Partition

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J wide -N3 --time=10 --wrap 'sleep 300'); wait_state "$a" RUNNING
fields "$a" JobState NodeList BatchHost NumNodes NumCPUs NumTasks CPUs/Task TRES MinCPUsNode ReqNodeList ExcNodeList
scontrol show job "$a" | grep -E '^   (NodeList|NumNodes|TRES)='
scontrol show job "$a" | grep -o 'AllocNode:Sid=[^:]*'

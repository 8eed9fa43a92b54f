#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J fmtO --wrap true)
squeue -j "$a" -O JobID,Name,State,Reason,Partition,NumCPUs,TimeLimit

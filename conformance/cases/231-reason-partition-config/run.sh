#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J huge -n 64 --wrap true); wait_reason "$a" PartitionConfig
squeue -h -j "$a" -o '%T %r %D'

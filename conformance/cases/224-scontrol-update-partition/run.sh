#!/usr/bin/env bash
. "$CASE_LIB"
scontrol update PartitionName=debug State=DOWN; echo "rc=$?"
sinfo -h -o '%P %a'
a=$(submit -J pdown --wrap true); wait_reason "$a" PartitionDown
squeue -h -j "$a" -o '%T %r'
scontrol update PartitionName=debug State=UP; echo "rc=$?"; wait_done "$a"; field "$a" JobState

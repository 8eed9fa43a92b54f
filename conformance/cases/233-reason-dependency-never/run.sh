#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -J f233 --wrap false); wait_done "$a"
b=$(submit -J n233 -d afterok:$a --wrap true); wait_reason "$b" DependencyNeverSatisfied
squeue -j "$b"

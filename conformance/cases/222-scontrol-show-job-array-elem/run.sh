#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J arr222 --array=1-2 --wrap true)
scontrol show job "${a}_1" | head -3

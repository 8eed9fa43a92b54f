#!/usr/bin/env bash
. "$CASE_LIB"
for t in 1 90 1:30 1:00:00 1-0 2-3:04:05 UNLIMITED; do
  id=$(submit -H --time=$t --wrap true); echo "$t -> $(field "$id" TimeLimit)"
done

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J one --wrap true)
scontrol show job -o "$a"; scontrol -o show job "$a" | wc -l

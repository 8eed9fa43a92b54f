#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J held --time=10 --wrap true)
squeue -l -j "$a"

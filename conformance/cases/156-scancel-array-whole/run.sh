#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --array=1-3 --wrap true)
scancel "$id"; echo "rc=$?"; wait_done "$id"
squeue -h -r -t all -j "$id" -o '%i %T' | sort

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J u158 --wrap true)
scancel -u root -n u158; echo "rc=$?"; wait_done "$a"; field "$a" JobState

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --wrap true)
scancel "$id"; echo "rc=$?"; wait_done "$id"
fields "$id" JobState Reason ExitCode

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --wrap 'kill -KILL $$'); wait_done "$a"; fields "$a" JobState Reason ExitCode

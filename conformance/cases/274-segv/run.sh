#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --wrap 'kill -SEGV $$'); wait_done "$a"; fields "$a" JobState Reason ExitCode

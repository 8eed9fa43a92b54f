#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --wrap 'exit 255'); wait_done "$a"; fields "$a" JobState ExitCode

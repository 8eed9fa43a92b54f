#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --wrap 'exit 3'); wait_done "$a"; fields "$a" JobState Reason ExitCode; scontrol -d show job "$a" | grep -o "DerivedExitCode=[^ ]*"

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -o d.out --wrap 'srun false; echo after; exit 0'); wait_done "$a"; fields "$a" JobState ExitCode; scontrol -d show job "$a" | grep -o "DerivedExitCode=[^ ]*"; cat d.out

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --time=1 -o t.out --wrap 'echo start; sleep 300'); WAIT_LIMIT=150 wait_done "$a"
fields "$a" JobState Reason ExitCode TimeLimit; cat t.out

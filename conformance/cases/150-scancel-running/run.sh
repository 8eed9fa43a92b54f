#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -J sleeper -o s.out --wrap 'echo started; sleep 300'); wait_state "$id" RUNNING
scancel "$id"; echo "rc=$?"; wait_done "$id"
fields "$id" JobState Reason ExitCode; cat s.out

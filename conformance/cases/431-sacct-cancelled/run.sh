#!/usr/bin/env bash
. "$CASE_LIB"
run=$(submit -J c431run -o /dev/null --wrap 'sleep 300')
held=$(submit -J c431held -H -o /dev/null --wrap 'true')
wait_state "$run" RUNNING
scancel "$run" "$held"
wait_done "$run" "$held"
sleep 2
sacct -j "$run,$held" -P -o JobID,JobName,State,ExitCode,NodeList,AllocNodes,Start
sacct -j "$run,$held" -X -o JobID,JobName,State

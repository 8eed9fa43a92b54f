#!/usr/bin/env bash
. "$CASE_LIB"
run=$(submit -J c431run -o /dev/null --wrap 'sleep 300')
held=$(submit -J c431held -H -o /dev/null --wrap 'true')
wait_state "$run" RUNNING
scancel "$run" "$held"
wait_done "$run" "$held"
wait_acct "$run" "$held"
sacct -j "$run" -P -o JobID,JobName,State,ExitCode,NodeList,AllocNodes,Start
# A held job's Start depends on when slurmdbd first heard of it (None, or when it was cancelled): left out.
sacct -j "$held" -P -o JobID,JobName,State,ExitCode,NodeList,AllocNodes
sacct -j "$run,$held" -X -o JobID,JobName,State

#!/usr/bin/env bash
. "$CASE_LIB"
# exec: the script is the sleep, so SIGTERM ends it by signal on both (a shell in between makes Slurm's batch step
# FAILED 15:0 now and then, by timing).
run=$(submit -J c431run -o /dev/null --wrap 'exec sleep 300')
held=$(submit -J c431held -H -o /dev/null --wrap 'true')
wait_state "$run" RUNNING
scancel "$run" "$held"
wait_done "$run" "$held"
wait_acct "$run" "$held"
sacct -j "$run" -P -o JobID,JobName,State,ExitCode,NodeList,AllocNodes,Start
# A held job's Start depends on when slurmdbd first heard of it (None, or when it was cancelled): left out.
sacct -j "$held" -P -o JobID,JobName,State,ExitCode,NodeList,AllocNodes
sacct -j "$run,$held" -X -o JobID,JobName,State

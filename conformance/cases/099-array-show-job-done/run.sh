#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -J arr --array=1-2 -o /dev/null --wrap true); wait_done "$id"
scontrol show job "$id" | grep -E 'JobId=|JobState=' | sed 's/^ *//' | sort

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --wrap 'exit 1'); b=$(submit --kill-on-invalid-dep=yes --dependency=afterok:$a --wrap true)
wait_done "$a" "$b"; fields "$b" JobState Reason

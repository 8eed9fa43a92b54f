#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -o nosuchdir/out.txt --wrap 'echo x'); wait_done "$id"
fields "$id" JobState ExitCode; ls

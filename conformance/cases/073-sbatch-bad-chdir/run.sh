#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --chdir=/nonexistent/dir --wrap 'echo x'); wait_done "$id"
fields "$id" JobState ExitCode WorkDir; ls

#!/usr/bin/env bash
. "$CASE_LIB"
scontrol show job 2>&1 | head -1 | sed 's/JobId=.*/JobId=.../'

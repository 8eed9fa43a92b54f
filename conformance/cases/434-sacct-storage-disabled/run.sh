#!/usr/bin/env bash
. "$CASE_LIB"
sacct
echo "exit $?"
sacct -j 1 -X
echo "exit $?"

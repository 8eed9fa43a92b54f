#!/usr/bin/env bash
. "$CASE_LIB"
sinfo -p debug -e; sinfo -p nosuch; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --wrap true)
scancel -v "$id" 2>&1 | grep -v -e 'auth' -e 'Setting' ; echo "rc=${PIPESTATUS[0]}"

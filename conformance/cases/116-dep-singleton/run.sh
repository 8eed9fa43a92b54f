#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J single --wrap true); b=$(submit -J single --dependency=singleton --wrap true)
wait_reason "$b" Dependency; fields "$b" Dependency Reason

#!/usr/bin/env bash
. "$CASE_LIB"
n=$(hostname -s)
scontrol update NodeName=$n State=DRAIN Reason=conformance; echo "rc=$?"
sinfo -h -o '%T'; sinfo -R -h -o '%E|%T|%N'
scontrol update NodeName=$n State=RESUME; echo "rc=$?"; sinfo -h -o '%T'

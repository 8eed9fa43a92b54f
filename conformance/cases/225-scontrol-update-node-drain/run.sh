#!/usr/bin/env bash
. "$CASE_LIB"
n=$(hostname -s)
scontrol update NodeName=$n State=DRAIN Reason=conformance; echo "rc=$?"
sinfo -h -o '%T'; sinfo -R -h -o '%E|%T|%N'
scontrol update NodeName=$n State=RESUME; echo "rc=$?"
# Right after a resume the node may briefly show as not responding (idle*).
for ((i = 0; i < 150; i++)); do [[ $(sinfo -h -o %T) == idle ]] && break; sleep 0.2; done
sinfo -h -o '%T'

#!/usr/bin/env bash
. "$CASE_LIB"
scontrol show topology; echo "rc=$?"
scontrol show topo "$(sinfo -h -N -o %N | head -n1)" 2>&1 | sed "s/named .*/named NODE/"; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
sinfo; echo "rc=$?"
sinfo -N
sinfo -N -l
sinfo -h -o '%P %a %D %T %N %c %G'
scontrol show node n2
scontrol show partition

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H -J arr --array=1-3 --wrap true)
scancel "${id}_2"; echo "rc=$?"
squeue -h -r -j "$id" -o '%i %T' | sort
squeue -h -j "${id}_2" -t all -o '%i %T'

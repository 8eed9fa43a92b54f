#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -o r.out --wrap 'echo run $SLURM_RESTART_COUNT'); wait_done "$id"
scontrol requeue "$id"; echo "rc=$?"

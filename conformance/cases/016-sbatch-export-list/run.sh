#!/usr/bin/env bash
. "$CASE_LIB"
export CONF_A=a CONF_B=b
id=$(submit --export=CONF_A,CONF_C=c --wrap 'echo "A=${CONF_A-unset} B=${CONF_B-unset} C=${CONF_C-unset}"'); wait_done "$id"
cat slurm-*.out

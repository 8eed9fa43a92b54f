#!/usr/bin/env bash
. "$CASE_LIB"
export CONF_A=a
id=$(submit --export=ALL,CONF_C=c --wrap 'echo "A=${CONF_A-unset} C=${CONF_C-unset}"'); wait_done "$id"
cat slurm-*.out

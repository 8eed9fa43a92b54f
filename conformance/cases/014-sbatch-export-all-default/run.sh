#!/usr/bin/env bash
. "$CASE_LIB"
export CONF_TEST_VAR=visible
id=$(submit --wrap 'echo "var=${CONF_TEST_VAR-unset}"'); wait_done "$id"
cat slurm-*.out

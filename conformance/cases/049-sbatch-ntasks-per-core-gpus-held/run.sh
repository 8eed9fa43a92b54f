#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --gpus-per-task=1 -n2 --wrap true)
fields "$id" TresPerTask NumTasks

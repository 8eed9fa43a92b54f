#!/usr/bin/env bash
. "$CASE_LIB"
scontrol show job 999999; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
squeue -j 999999; echo "rc=$?"
squeue -j abc; echo "rc=$?"

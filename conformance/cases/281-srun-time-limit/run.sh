#!/usr/bin/env bash
. "$CASE_LIB"
srun --time=1 sleep 300; echo "rc=$?"

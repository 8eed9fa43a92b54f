#!/usr/bin/env bash
. "$CASE_LIB"
srun false; echo "rc=$?"

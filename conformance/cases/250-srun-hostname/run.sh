#!/usr/bin/env bash
. "$CASE_LIB"
srun hostname; echo "rc=$?"

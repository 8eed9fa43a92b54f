#!/usr/bin/env bash
. "$CASE_LIB"
salloc -N1 srun hostname; echo "rc=$?"

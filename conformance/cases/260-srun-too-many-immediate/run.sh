#!/usr/bin/env bash
. "$CASE_LIB"
srun -n 64 --immediate=1 hostname; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
srun bash -c 'kill -9 $$'; echo "rc=$?"

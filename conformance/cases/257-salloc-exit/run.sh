#!/usr/bin/env bash
. "$CASE_LIB"
salloc -n1 bash -c 'exit 3'; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
squeue --bogus; echo "rc=$?"
sinfo --bogus; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
srun --bogus-option true; echo "rc=$?"

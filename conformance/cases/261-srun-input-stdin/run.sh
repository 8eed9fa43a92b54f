#!/usr/bin/env bash
. "$CASE_LIB"
printf 'a\nb\n' | srun cat; echo "rc=$?"

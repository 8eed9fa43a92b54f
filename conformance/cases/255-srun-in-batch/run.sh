#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -n2 -o b.out --wrap 'srun -l hostname | sort; echo "batch rc=$?"'); wait_done "$a"
cat b.out

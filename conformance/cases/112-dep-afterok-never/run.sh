#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --wrap 'exit 1'); b=$(submit --dependency=afterok:$a --wrap true)
wait_done "$a"; wait_reason "$b" DependencyNeverSatisfied
squeue -h -j "$b" -o '%T %r'; fields "$b" Dependency

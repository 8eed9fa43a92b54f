#!/usr/bin/env bash
. "$CASE_LIB"
# An array uses up one job id; each task gets the next free id as it starts, the last keeps the array's.
arr=$(submit -H -J c600 --array=1-3%1 -o /dev/null --time=1 --wrap true)
mid=$(submit -H -J c600mid -o /dev/null --wrap true)
echo "between: $((mid - arr))"
squeue -h -r -j "$arr" -o '%i %A %T' | sort
scontrol release "$arr"
wait_done "$arr"
scancel "$mid"
for t in 1 2 3; do
    id=$(scontrol show job "${arr}_$t" | sed -n 's/^JobId=\([0-9]*\) .*/\1/p')
    echo "task $t: $((id - arr))"
done
scontrol show job "$arr" | grep -oE '^JobId=[0-9]+ ArrayJobId=[0-9]+ ArrayTaskId=[0-9]+' | sort

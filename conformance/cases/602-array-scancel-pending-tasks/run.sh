#!/usr/bin/env bash
. "$CASE_LIB"
# Never-started tasks are bits of the array's record: cancelling them one by one uses up no job id.
arr=$(submit -H -J c602 --array=1-3 -o /dev/null --wrap true)
scancel "${arr}_1"; echo "rc=$?"
scancel "${arr}_3"; echo "rc=$?"
squeue -h -r -j "$arr" -o '%i %A %T %r'
squeue -h -j "$arr" -o '%i %A %T'
scancel "${arr}_3"; echo "again rc=$?"
next=$(submit -H -J c602next -o /dev/null --wrap true)
echo "next: $((next - arr))"
scancel "$next"
scontrol release "$arr"
wait_done "$arr"
id=$(scontrol show job "${arr}_2" | sed -n 's/^JobId=\([0-9]*\) .*/\1/p')
echo "task 2: $((id - arr))"

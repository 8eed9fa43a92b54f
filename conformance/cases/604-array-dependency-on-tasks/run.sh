#!/usr/bin/env bash
. "$CASE_LIB"
# afterok on the array id waits for every task, those not started yet too; tasks get ids as they start.
arr=$(submit -H -J c604 --array=1-2%1 -o /dev/null --time=1 --wrap 'sleep 2')
child=$(submit -J c604child --dependency="afterok:$arr" -o /dev/null --time=1 --wrap true)
echo "child: $((child - arr))"
scontrol release "$arr"
wait_state "${arr}_1" RUNNING
wait_reason "$child" Dependency
echo "child $(field "$child" Dependency)"
wait_done "$arr" "$child"
for t in 1 2; do
    id=$(scontrol show job "${arr}_$t" | sed -n 's/^JobId=\([0-9]*\) .*/\1/p')
    echo "task $t: $((id - arr))"
done
echo "child $(field "$child" JobState)"

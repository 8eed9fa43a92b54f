#!/usr/bin/env bash
. "$CASE_LIB"
# sacct's raw ids of array tasks started one by one with a job submitted between: the next free id at each start,
# the array's own for the last.
arr=$(submit -H -J c603 --array=1-3%1 -o /dev/null --time=1 --wrap true)
mid=$(submit -H -J c603mid -o /dev/null --time=1 --wrap true)
scontrol release "$arr"
wait_done "$arr"
scancel "$mid"
wait_acct "${arr}_1" "${arr}_2" "${arr}_3" "$mid"
sacct -j "$arr" -X -n -P -o JobID,JobIDRaw,JobName,State | while IFS='|' read -r id raw name state; do
    echo "$id $((raw - arr)) $name $state"
done
sacct -j "${arr}_2" -n -P -o JobID,State
echo "mid: $(sacct -j "$mid" -X -n -P -o JobIDRaw,State | sed "s/^$mid|/+$((mid - arr))|/")"

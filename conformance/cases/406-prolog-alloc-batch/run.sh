#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -J c406 -o /dev/null --wrap 'sleep 5')
# The prolog takes two seconds: the job runs with reason Prolog meanwhile.
deadline=$((SECONDS + 30))
until [[ $(squeue -h -j "$id" -o '%T %r') == 'RUNNING Prolog' ]] || ((SECONDS > deadline)); do sleep 0.1; done
squeue -h -j "$id" -o '%T %r'
fields "$id" JobState Reason
deadline=$((SECONDS + 30))
until [[ $(squeue -h -j "$id" -o '%T %r') == 'RUNNING None' ]] || ((SECONDS > deadline)); do sleep 0.1; done
fields "$id" JobState Reason
squeue -s -h -j "$id" -o '%i %j %N'
scontrol show step "$id" -o | sed 's/StartTime=[^ ]*/StartTime=T/'
wait_done "$id"
echo "after: $(squeue -s -h -j "$id" | wc -l)"

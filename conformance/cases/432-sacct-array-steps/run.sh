#!/usr/bin/env bash
. "$CASE_LIB"
arr=$(submit -J c432arr --array=1-2 -o /dev/null --wrap 'true')
steps=$(submit -J c432steps -o /dev/null --wrap 'srun true; srun false; srun -n1 hostname')
wait_done "$arr" "$steps"
wait_acct "${arr}_1" "${arr}_2" "$steps"
sacct -j "$arr" -o JobID,JobName,State,ExitCode
sacct -j "${arr}_2" -X -P -o JobID,JobName,State
sacct -j "$steps" -P -o JobID,JobName,State,ExitCode,DerivedExitCode,NTasks,NNodes,AllocCPUS
sacct -j "$steps.1" -P -o JobID,JobName,State,ExitCode
sacct -j "$steps.batch,$steps.0" -n -P -o JobID,State
echo "completed:"
sacct -X -n -P -o JobName,State -s CD -S now-10minutes -E now --name c432steps,c432arr

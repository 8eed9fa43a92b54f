#!/usr/bin/env bash
. "$CASE_LIB"
# The access mode's slurm.conf has Licenses=fluent:3,ansys.
scontrol show licenses; scontrol -o show lic fluent; scontrol show lic nosuch; echo "rc=$?"
a=$(submit -L fluent:2 -o /dev/null --wrap 'while [ ! -e release ]; do sleep 0.1; done')
wait_state "$a" RUNNING
b=$(submit -L fluent:2,ansys -o /dev/null --wrap 'true')
wait_reason "$b" Licenses
squeue -h -j "$a,$b" -o '%T %r %W' | sort
scontrol -o show lic
fields "$b" JobState Licenses
sbatch -L nosuch --wrap true; echo "rc=$?"
sbatch -L fluent:4 --wrap true; echo "rc=$?"
sbatch -L fluent:x --wrap true; echo "rc=$?"
touch release; wait_done "$a" "$b"
fields "$b" JobState
scontrol -o show lic

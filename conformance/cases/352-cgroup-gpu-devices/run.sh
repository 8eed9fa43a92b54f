#!/usr/bin/env bash
. "$CASE_LIB"
# shellcheck disable=SC2016 # the job expands $CUDA_VISIBLE_DEVICES and $i, not this script
# No driver behind the fake nodes (char 195:N): an allowed one fails with ENXIO, a denied one with EPERM.
a=$(submit --gres=gpu:1 -o gpu.out --wrap 'echo $CUDA_VISIBLE_DEVICES; for i in 0 1 2 3; do head -c1 '"$RUNDIR"'/dev/nvidia$i 2>&1 | sed "s/.*: //"; done')
wait_done "$a"
fields "$a" JobState ExitCode
cat gpu.out

#!/bin/bash
trap 'echo shell got USR1' USR1
srun -J inner bash -c 'trap "echo task got USR1; exit 3" USR1; touch step-ready; while :; do sleep 0.1; done' &
wait $!
echo "srun rc=$?"
trap - USR1
touch shell-done
while [[ ! -e release ]]; do sleep 0.1; done

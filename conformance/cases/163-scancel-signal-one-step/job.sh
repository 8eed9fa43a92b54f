#!/bin/bash
srun -J first --overlap bash -c 'trap "echo first got USR1; exit 3" USR1; touch ready0; while [[ ! -e release ]]; do sleep 0.1; done; echo first released' &
while [[ ! -e ready0 ]]; do sleep 0.1; done
srun -J second --overlap bash -c 'trap "echo second got USR1; sleep 0.$((SLURM_PROCID * 5)); exit 4" USR1; touch ready1; while [[ ! -e release ]]; do sleep 0.1; done; echo second released' &
wait

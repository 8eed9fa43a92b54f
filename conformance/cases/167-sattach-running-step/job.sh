#!/bin/bash
# Each task prints a little, then waits until the case has attached and lets it go.
srun -n2 bash -c 'echo before $SLURM_PROCID; echo warn $SLURM_PROCID >&2; touch ready-$SLURM_PROCID; while [ ! -e release ]; do sleep 0.1; done; echo after $SLURM_PROCID; exit $((SLURM_PROCID * 2))'
echo "srun rc=$?"

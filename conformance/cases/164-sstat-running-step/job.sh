#!/bin/bash
# The task holds 40 MB in a shell variable until the case lets it go.
srun -n1 bash -c 'x=$(head -c 40000000 /dev/zero | tr "\0" x); touch ready; while [ ! -e release ]; do sleep 0.1; done; echo ${#x}'
echo "srun rc=$?"

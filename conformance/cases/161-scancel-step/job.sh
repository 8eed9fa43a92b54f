#!/bin/bash
srun -J inner bash -c 'touch step-started; exec sleep 300'
echo "srun rc=$?"

#!/bin/bash
srun -J inner sleep 300
echo "srun rc=$?"

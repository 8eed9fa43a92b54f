#!/bin/bash
srun --time=1 sleep 300
echo "srun rc=$?"

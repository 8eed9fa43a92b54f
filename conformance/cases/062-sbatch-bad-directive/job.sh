#!/bin/bash
#SBATCH --no-such-thing
echo hi

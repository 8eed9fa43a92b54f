#!/bin/bash
#SBATCH -J fromscript
#SBATCH -o script-%j.out
echo ran

#!/bin/bash
#SBATCH -J first
echo ran
#SBATCH -J ignored

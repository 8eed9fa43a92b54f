#!/bin/bash
srun -J step0 sleep 300

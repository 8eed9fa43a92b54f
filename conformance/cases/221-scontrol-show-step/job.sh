#!/bin/bash
srun -J inner sleep 300

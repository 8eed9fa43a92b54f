#!/usr/bin/env python3
import os
print("python job", os.environ["SLURM_JOB_NAME"])

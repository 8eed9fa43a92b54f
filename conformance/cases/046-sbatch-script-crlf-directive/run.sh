#!/usr/bin/env bash
. "$CASE_LIB"
printf '#!/bin/bash\n#SBATCH -J ok\necho fine\n' > good.sh
id=$(submit good.sh); wait_done "$id"; cat slurm-*.out; field "$id" JobName

#!/usr/bin/env bash
. "$CASE_LIB"
printf '#!/bin/bash\ntrue\n' > s.sh
sbatch --wrap true s.sh; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
printf 'echo no shebang\n' > noshebang.sh
sbatch noshebang.sh; echo "rc=$?"

#!/usr/bin/env bash
# The raw RPC path pyslurm uses for a job's batch script (libspur_compat/tests/c/rawrpc_c.c, built against
# <slurm/slurm.h> with -lslurm): the script of a held job, and RESPONSE_SLURM_RC with 2017 for an unknown job.
. "$CASE_LIB"
src=$CASE_DIR/../../../libspur_compat/tests/c/rawrpc_c.c
gcc -Wall -Werror -o "$CASE_TMP/rawrpc_c" "$src" -lslurm || exit 1
printf '#!/bin/bash\n#SBATCH --job-name=rawrpc\necho raw rpc script\n' >job.sh
id=$(submit --hold job.sh) || exit 1
"$CASE_TMP/rawrpc_c" "$id"

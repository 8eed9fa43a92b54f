#!/usr/bin/env bash
# Slurm grants a heterogeneous allocation only in its backfill cycle, so it says `Pending job allocation N` and
# `queued and waiting for resources` first; only the lines both print whatever the timing are compared.
. "$CASE_LIB"
timeout 90 salloc -n1 : -N2 -n2 bash -c 'env > env.txt; srun -l --het-group=0,1 hostname | sort' 2>salloc.err
echo "rc=$?"
grep -E 'Granted|Relinquishing' salloc.err
# The second component's id, as the leader's plus one (earlier cases may have used ids differently on each side).
leader=$(sed -n 's/^SLURM_JOB_ID=//p' env.txt)
slurm_env env.txt | grep -vE '^SLURM_(CONF|SUBMIT_DIR)=' | sed "s/=$((leader + 1))\$/=<leader+1>/"

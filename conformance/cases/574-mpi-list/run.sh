#!/usr/bin/env bash
. "$CASE_LIB"
# The MPI plugin types srun lists (on stderr, before any allocation is made).
srun --mpi=list
echo "rc=$?"

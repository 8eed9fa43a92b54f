#!/usr/bin/env bash
. "$CASE_LIB"
. "$CASE_DIR/../../mpi/case.sh"
# Rank 1 of six calls MPI_Abort(MPI_COMM_WORLD, 7) under srun --mpi=pmi2; the others block until the step is torn
# down. srun's exit code and its messages (stderr, sorted and without repeats: they come from several nodes, and slurmstepd may print its CANCELLED line once or twice) are compared.
cat > steps.sh <<'SCRIPT'
#!/bin/bash
srun --mpi=pmi2 -N3 -n6 "$MPI_DIR/abort.mpich" > abort.out 2> abort.err
echo "rc=$?"
cat abort.out
# The aborting rank's node (n1) reports its tasks as Killed or rank 1 as exiting with 7, as the race goes.
sort -u abort.err | grep -v "^srun: error: n1: task"
SCRIPT
id=$(submit -N3 -n6 -o steps.out steps.sh); wait_done "$id"
cat steps.out

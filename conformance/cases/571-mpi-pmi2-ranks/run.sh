#!/usr/bin/env bash
. "$CASE_LIB"
. "$CASE_DIR/../../mpi/case.sh"
# MPICH ranks started by srun itself through the PMI-2 plugin, across the three nodes, block and cyclic.
cat > steps.sh <<'SCRIPT'
#!/bin/bash
for layout in "-N3 -n6" "-N3 -n6 -m cyclic"; do
    echo "== srun --mpi=pmi2 $layout"
    srun --mpi=pmi2 $layout "$MPI_DIR/ranks.mpich" > ranks.out 2> ranks.err
    echo "rc=$?"
    sort ranks.out
    cat ranks.err
done
SCRIPT
id=$(submit -N3 -n6 -o steps.out steps.sh); wait_done "$id"
cat steps.out

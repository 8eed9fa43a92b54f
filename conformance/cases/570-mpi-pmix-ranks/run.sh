#!/usr/bin/env bash
. "$CASE_LIB"
. "$CASE_DIR/../../mpi/case.sh"
# Open MPI ranks started by srun itself through the PMIx plugin, across the three nodes: block (default), cyclic
# and one task per node. Each rank prints rank, size, host, an allreduce and its ring neighbour; lines are sorted
# because ranks on different nodes write in any order.
cat > steps.sh <<'SCRIPT'
#!/bin/bash
for layout in "-N3 -n6" "-N3 -n6 -m cyclic" "-N3 -n3 --ntasks-per-node=1"; do
    echo "== srun --mpi=pmix $layout"
    srun --mpi=pmix $layout "$MPI_DIR/ranks.openmpi" > ranks.out 2> ranks.err
    echo "rc=$?"
    sort ranks.out
    cat ranks.err
done
SCRIPT
id=$(submit -N3 -n6 -o steps.out steps.sh); wait_done "$id"
cat steps.out

#!/usr/bin/env bash
. "$CASE_LIB"
. "$CASE_DIR/../../mpi/case.sh"
# Open MPI's mpirun inside a three-node batch job: it reads the allocation from SLURM_* variables and starts its
# daemons (orted) on the other nodes with `srun --ntasks-per-node=1 --kill-on-bad-exit --mpi=none ...`. Ranks fill
# the slots node by node, then round-robin with --map-by node; then a rank calls MPI_Abort. mpirun.openmpi is
# named explicitly: /usr/bin/mpirun may be Slurm's mpiexec.slurm through alternatives.
cat > steps.sh <<'SCRIPT'
#!/bin/bash
# Step creation may wait for the previous launcher's daemon step to end on Slurm (a racy pair of srun lines); Open
# MPI's messages carry its pid and job number.
racy() {
    grep -v -e 'step creation temporarily disabled' -e '^srun: Step created for job' "$1" |
        sed -E 's/\[(n[0-9]+):[0-9]+\] \[\[[0-9]+,/[\1:PID] [[JOB,/'
}
echo "== mpirun"
mpirun.openmpi "$MPI_DIR/ranks.openmpi" > ranks.out 2> ranks.err
echo "rc=$?"
sort ranks.out
racy ranks.err
echo "== mpirun -np 6 --map-by node"
mpirun.openmpi -np 6 --map-by node "$MPI_DIR/ranks.openmpi" > ranks.out 2> ranks.err
echo "rc=$?"
sort ranks.out
racy ranks.err
echo "== mpirun abort"
mpirun.openmpi "$MPI_DIR/abort.openmpi" > abort.out 2> abort.err
echo "rc=$?"
cat abort.out
# mpirun's MPI_ABORT banner is racy on both systems (sometimes an ORTE_ERROR_LOG line from show_help instead), so
# only its exit code and the rank's own line are compared.
SCRIPT
id=$(submit -N3 -n6 -o steps.out steps.sh); wait_done "$id"
cat steps.out

#!/usr/bin/env bash
. "$CASE_LIB"
. "$CASE_DIR/../../mpi/case.sh"
# MPICH's mpiexec (hydra) inside a three-node batch job: it reads the allocation from SLURM_* variables and starts
# its proxies on the nodes through srun (its slurm bootstrap). Then a rank calls MPI_Abort.
cat > steps.sh <<'SCRIPT'
#!/bin/bash
# Step creation may wait for the previous launcher's daemon step to end on Slurm (a racy pair of srun lines); Open
# MPI's messages carry its pid and job number.
racy() {
    grep -v -e 'step creation temporarily disabled' -e '^srun: Step created for job' "$1" |
        sed -E 's/\[(n[0-9]+):[0-9]+\] \[\[[0-9]+,/[\1:PID] [[JOB,/'
}
echo "== mpiexec.mpich"
mpiexec.mpich "$MPI_DIR/ranks.mpich" > ranks.out 2> ranks.err
echo "rc=$?"
sort ranks.out
racy ranks.err
echo "== mpiexec.mpich -n 3 -ppn 1"
mpiexec.mpich -n 3 -ppn 1 "$MPI_DIR/ranks.mpich" > ranks.out 2> ranks.err
echo "rc=$?"
sort ranks.out
racy ranks.err
echo "== mpiexec.mpich abort"
mpiexec.mpich "$MPI_DIR/abort.mpich" > abort.out 2> abort.err
echo "rc=$?"
cat abort.out
racy abort.err
SCRIPT
id=$(submit -N3 -n6 -o steps.out steps.sh); wait_done "$id"
cat steps.out

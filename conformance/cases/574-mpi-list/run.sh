#!/usr/bin/env bash
. "$CASE_LIB"
# The MPI plugin types srun lists (on stdout, before any allocation is made).
srun --mpi=list
echo "rc=$?"
# The cray_shasta plugin listed there: each task's PALS variables, the step's application directory and its apinfo
# file (decoded by conformance/mpi/apinfo.py, on the first task of every node), in three layouts; after the steps
# the application directories are gone and the plugin's directory stays in each node's spool.
APINFO="$CASE_DIR/../../mpi/apinfo.py"
export APINFO
cat > steps.sh <<'SCRIPT'
#!/bin/bash
for layout in "-N3 -n5" "-N3 -n6 -m cyclic" "-N3 -n3 -c2"; do
    echo "== srun --mpi=cray_shasta $layout"
    # shellcheck disable=SC2016,SC2086
    srun --mpi=cray_shasta $layout bash -c '
        env | grep -E "^(PALS_|PMI_|SLURM_MPI_TYPE=|SLURM_STEP_RESV_PORTS=)" | sed "s/^/$SLURM_PROCID: /"
        if [ "$SLURM_LOCALID" = 0 ]; then
            stat -c "$SLURM_NODEID: dir %a %U %n" "$PALS_SPOOL_DIR"
            "$APINFO" "$PALS_APINFO" | sed "s/^/$SLURM_NODEID: /"
        fi' > step.out 2>&1
    echo "rc=$?"
    sort step.out
done
SCRIPT
id=$(submit -N3 -n6 -o steps.out steps.sh); wait_done "$id"
cat steps.out
for node in n1 n2 n3; do
    printf '%s: ' "$node"; ls -A "$RUNDIR/spool/$node/mpi_cray_shasta" | wc -l
    stat -c '%a %U' "$RUNDIR/spool/$node/mpi_cray_shasta"
done

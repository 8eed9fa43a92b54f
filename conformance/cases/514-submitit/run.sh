#!/usr/bin/env bash
# submitit 1.5.4 (from PyPI, conformance/submitit/setup.sh) end to end: its executor writes and submits sbatch
# scripts (srun inside), and its watcher polls states with `sacct -o JobID,State,NodeList --parsable2 -j A -j B ...`
# until every job is done; results, exceptions and states come back through it.
. "$CASE_LIB"
if ! py=$("$CASE_DIR/../../submitit/setup.sh"); then
    # Name the target, so the two sides differ and the case fails instead of comparing two refusals as equal.
    target=slurm
    [[ -n ${RUNDIR:-} && -e $RUNDIR/lib/libslurm.so.38 ]] && target=spur
    echo "submitit could not be installed (target $target)"
    exit 2
fi
"$py" "$CASE_DIR/poll.py" "$CASE_TMP/submitit" "$(sinfo -h -o %P | head -n1 | tr -d '*')"
echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
# srun's own lines only: a node still completing the last job makes the next one wait a moment on Slurm.
settled() { grep -v -e 'queued and waiting for resources' -e 'has been allocated resources' "$@" || true; }
srun -v true 2>err; echo "rc=$?"; settled err
srun -v -N1 -n2 -t1 --job-name=foo -o /dev/null -l true 2>err; echo "rc=$?"; settled err
srun -v -n1 --mem=100 --time=90 -c1 --exclusive --kill-on-bad-exit --open-mode=append -u true 2>err; echo "rc=$?"; settled err
srun -v -n1 sh -c 'exit 3' 2>err; echo "rc=$?"; settled err
# Higher levels: the dump counts them; the debug lines between are left out here (ports, thread ids).
srun -vvvv true 2>err; echo "rc=$?"; settled err | grep -E '^srun: (defined options|verbose|end of defined options|-+ -+)'
SLURM_DEBUG=2 srun true 2>err; echo "rc=$?"; settled err | grep -E '^srun: (defined options|verbose|end of defined options)'

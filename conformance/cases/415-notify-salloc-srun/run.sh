#!/usr/bin/env bash
. "$CASE_LIB"
salloc -N1 -J c415salloc sleep 6 >salloc.out 2>&1 &
s=$!
srun -N1 -J c415srun sleep 6 >srun.out 2>&1 &
r=$!
id_of() { squeue -h -n "$1" -t RUNNING -o %i 2>/dev/null | head -n1; }
deadline=$((SECONDS + 30))
while [[ -z $(id_of c415salloc) || -z $(id_of c415srun) ]] && ((SECONDS < deadline)); do sleep 0.2; done
a=$(id_of c415salloc); b=$(id_of c415srun); track "$a" "$b"
scontrol notify "$a" hello salloc 2>&1; echo "rc=$?"
scontrol notify "$b" hello srun 2>&1; echo "rc=$?"
wait "$s" "$r"
# Slurm's salloc sometimes also prints `Job allocation N has been revoked.` after relinquishing it (the
# controller's notice races its exit; docs/compatibility.md): left out.
grep -v 'has been revoked' salloc.out
echo ---
cat srun.out

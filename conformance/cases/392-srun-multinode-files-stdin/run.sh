#!/usr/bin/env bash
. "$CASE_LIB"
cat > steps.sh <<'SCRIPT'
#!/bin/bash
srun -N3 -n3 -o 'out-%t.txt' bash -c 'echo task $SLURM_PROCID on $(hostname)'
echo "rc=$?"
echo hello | srun -N3 -n3 -l cat | sort
echo "rc=$?"
printf 'one\ntwo\n' | srun -N2 -n2 -l --input=1 cat | sort
echo "rc=$?"
SCRIPT
id=$(submit -N3 -n6 -o steps.out steps.sh); wait_done "$id"
cat steps.out
for f in out-0.txt out-1.txt out-2.txt; do echo "== $f"; cat "$f"; done

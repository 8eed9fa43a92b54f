#!/usr/bin/env bash
. "$CASE_LIB"
h=$(hostname -s)
# The reference node's weight is slurm.conf's default, 1: put it back whatever happens.
trap 'scontrol update NodeName="$h" Weight=1 Features= ActiveFeatures= >/dev/null 2>&1' EXIT
nobody() { su nobody -s /bin/bash -c "$*"; }
weight() { scontrol show node "$h" | grep -o 'Weight=[0-9]*'; }
weight
for w in 10000 20000 5000 2k 0x10 010 0 '' UNLIMITED 4294967280; do
    scontrol update NodeName="$h" Weight="$w" 2>&1; echo "rc=$?"
    weight
done
sinfo -h -N -o '%N %w' | sed "s/^$h /NODE /"
scontrol -o show node "$h" | grep -o 'Weight=[0-9]*'
# Bad values: reported, and with nothing else to change "No changes specified".
for w in abc 5x -1 ' -1' 4294967281 99999999999999999999 99999999999999999999x; do
    scontrol update NodeName="$h" Weight="$w" 2>&1; echo "rc=$?"
done
weight
scontrol update NodeName="$h" 2>&1; echo "rc=$?"
scontrol update NodeName=nosuch497 Weight=5 2>&1; echo "rc=$?"
nobody scontrol update NodeName="$h" Weight=7 2>&1; echo "rc=$?"
weight
scontrol update NodeName="$h" Weight=1 2>&1; echo "rc=$?"
weight
# Features (the reference node has none): available and active together without a node features plugin; a job
# constrained to one runs; dropping an active feature needs ActiveFeatures= too.
feats() { scontrol show node "$h" | grep -o '[A-Za-z]*Features=[^ ]*'; }
feats
scontrol update NodeName="$h" Features=f497,g497 2>&1; echo "rc=$?"
feats
sinfo -h -N -o '%f|%b'
srun -C g497 -n1 true 2>&1; echo "rc=$?"
scontrol update NodeName="$h" AvailableFeatures=f497 2>&1; echo "rc=$?"
scontrol update NodeName="$h" Features= 2>&1; echo "rc=$?"
scontrol update NodeName="$h" ActiveFeatures=z497 2>&1; echo "rc=$?"
feats
scontrol update NodeName="$h" Features=f497 ActiveFeatures=f497 2>&1; echo "rc=$?"
feats
nobody scontrol update NodeName="$h" Features=x497 2>&1; echo "rc=$?"
# (Slurm then shows an empty ActiveFeatures=, Spur (null): docs/compatibility.md.)
scontrol update NodeName="$h" Features= ActiveFeatures= 2>&1; echo "rc=$?"
scontrol show node "$h" | grep -o 'AvailableFeatures=[^ ]*'
# Without MaxNodeCount slurmctld has no spare node slot: it logs "node table is full" and answers success, adding
# nothing.
scontrol create NodeName=n497 State=FUTURE 2>&1; echo "rc=$?"
scontrol create NodeName=n497 State=CLOUD CPUs=1 2>&1; echo "rc=$?"
scontrol show node n497 2>&1; echo "rc=$?"
scontrol create NodeName=n497 State=idle 2>&1; echo "rc=$?"
nobody scontrol create NodeName=n497 State=FUTURE 2>&1; echo "rc=$?"
sinfo -h -N -o '%N' | sed "s/^$h\$/NODE/"
# The same through the C API (libspur_compat/tests/c/nodeupd_c.c, built against <slurm/slurm.h> with -lslurm):
# slurm_update_node's weight, NO_VAL/NULL fields left alone, slurm_create_node.
gcc -Wall -Werror -o "$CASE_TMP/nodeupd_c" "$CASE_DIR/../../../libspur_compat/tests/c/nodeupd_c.c" -lslurm || exit 1
"$CASE_TMP/nodeupd_c" "$h" 2>&1 | sed "s/$h/NODE/g"

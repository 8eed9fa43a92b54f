#!/usr/bin/env bash
# Debian's Torque wrappers are Perl scripts on the Slurm Perl API (Slurm.so, linked with libslurm.so.38): on the
# Spur target they run on libspur_compat.so through LD_LIBRARY_PATH. qsub a script, list it with qstat, show it
# with qstat -f, qdel it, list the nodes with pbsnodes.
. "$CASE_LIB"
# qsub runs the sbatch beside it (FindBin): install the wrappers next to this target's sbatch, as a site has them.
mkdir -p "$CASE_TMP/bin"
for w in qsub qstat qdel pbsnodes; do cp "/usr/bin/$w" "$CASE_TMP/bin/"; done
ln -s "$(command -v sbatch)" "$CASE_TMP/bin/sbatch"
PATH=$CASE_TMP/bin:$PATH
cat >"$CASE_TMP/job.sh" <<'JOB'
#!/bin/bash
#PBS -N torquejob
sleep 300
JOB
id=$(qsub "$CASE_TMP/job.sh")
echo "qsub rc=$? out=$id"
track "$id"
wait_state "$id" RUNNING
# qstat lists every job the controller still shows, other cases' finished ones too: keep its header and this job.
qstat >"$CASE_TMP/qstat.out"
echo "qstat rc=$?"
awk -v id="$id" 'NR <= 2 || $1 == id' "$CASE_TMP/qstat.out"
qstat -f "$id"
echo "qstat -f rc=$?"
pbsnodes
echo "pbsnodes rc=$?"
pbsnodes -a
echo "pbsnodes -a rc=$?"
qdel "$id"
echo "qdel rc=$?"
wait_done "$id"
qstat -f "$id"
echo "qstat -f done rc=$?"
qstat -f 999999
echo "qstat -f unknown rc=$?"

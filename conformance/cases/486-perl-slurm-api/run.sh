#!/usr/bin/env bash
# Debian's Perl API (libslurm-perl: Slurm.pm, Slurm::Hostlist, Slurm::Bitstr; Slurm.so links libslurm.so.38 by
# soname, so on the Spur target it runs on libspur_compat.so through LD_LIBRARY_PATH): api.pl submits, loads,
# kills and formats through it.
. "$CASE_LIB"
perl "$CASE_DIR/api.pl" >"$CASE_TMP/out" 2>&1
rc=$?
track $(sed -n 's/^JOBID=//p' "$CASE_TMP/out")
grep -v '^JOBID=' "$CASE_TMP/out"
echo "rc=$rc"

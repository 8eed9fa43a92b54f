#!/usr/bin/env bash
# Debian's Slurmdb Perl API (libslurmdb-perl; Slurmdb.so links libslurm.so.38 by soname, so on the Spur target it
# runs on libspur_compat.so through LD_LIBRARY_PATH): db.pl reads a finished job back from accounting.
. "$CASE_LIB"
id=$(submit -J perldb -o /dev/null --wrap 'exit 3')
wait_done "$id"
wait_acct "$id"
perl "$CASE_DIR/db.pl" "$id" 2>&1
echo "rc=$?"

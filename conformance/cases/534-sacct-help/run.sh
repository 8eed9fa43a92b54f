#!/usr/bin/env bash
# sacct --help and --usage as Slurm 22.05 prints them, an ambiguous abbreviation among sacct's full option set,
# and getopt's one-line errors.
. "$CASE_LIB"
show() { echo "\$ $*"; "$@" 2>&1; echo "rc=$?"; }
show sacct --help
show sacct --usage
show sacct --e
show sacct --frob
show sacct -j

#!/usr/bin/env bash
# Reservations through the C API (resv_c.c): windows at fixed times in 2030, so no job of this run is in the way.
. "$CASE_LIB"
# Reservations outlive the case: remove them whatever happens (the anonymous one is named after its account).
trap 'for r in $(scontrol -o show reservation 2>/dev/null | grep -o "ReservationName=[^ ]*" | cut -d= -f2); do
    case $r in c416*|acct416_*) scontrol delete reservation "$r" >/dev/null 2>&1;; esac; done' EXIT
src=$CASE_DIR/../../../libspur_compat/tests/c/resv_c.c
gcc -o "$CASE_TMP/resv_c" "$src" -lslurm || exit 1
# The anonymous reservation's number counts every reservation the cluster made before, which differs by target.
"$CASE_TMP/resv_c" "$(hostname -s)" 2>/dev/null | sed -E 's/acct416_[0-9]+/acct416_N/g'

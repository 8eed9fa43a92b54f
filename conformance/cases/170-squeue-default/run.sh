#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J held --wrap true); b=$(submit -H -J other --time=10 --wrap true)
squeue -j "$a,$b"

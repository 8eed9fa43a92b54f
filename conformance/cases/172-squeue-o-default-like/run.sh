#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J fmt --wrap true)
squeue -j "$a" -o "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"

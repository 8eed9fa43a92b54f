#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J nup180 --wrap true)
squeue -h -n nup180 -o '%i %j'; squeue -h -u root -n nup180 -o '%j'; squeue -h -p debug -n nup180 -o '%j %P'

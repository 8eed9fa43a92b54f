#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -o /dev/null -H -A MY_ACCT --wrap true)
echo "-A: $(squeue -h -j "$a" -o %a)"
scontrol show job "$a" | grep -o 'Account=[^ ]*'
b=$(SBATCH_ACCOUNT=Env_Acct submit -o /dev/null -H --wrap true)
echo "SBATCH_ACCOUNT: $(squeue -h -j "$b" -o %a)"
c=$(printf '#!/bin/sh\n#SBATCH --account=Script_ACCT\ntrue\n' | submit -o /dev/null -H)
echo "#SBATCH: $(squeue -h -j "$c" -o %a)"
echo "squeue -A my_acct: $(squeue -h -A my_acct -o %a -j "$a,$b,$c")"
echo "squeue -A MY_ACCT: $(squeue -h -A MY_ACCT -o %a -j "$a,$b,$c")"
scancel "$a" "$b" "$c"

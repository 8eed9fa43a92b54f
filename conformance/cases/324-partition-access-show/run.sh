#!/usr/bin/env bash
. "$CASE_LIB"
sinfo -o "%P %g %r"
scontrol show partition grp
scontrol show partition rooto
scontrol show partition noroot | grep -o 'DisableRootJobs=[A-Z]*'
scontrol -o show partition grp | tr ' ' '\n' | grep -E '^(AllowGroups|AllowAccounts|AllowQos|RootOnly)='
for p in acct deny; do
    scontrol -o show partition "$p" | tr ' ' '\n' | grep -E '^(Allow|Deny)'
done
# Without accounting neither list is enforced: the job is taken.
j=$(submit -o /dev/null -H -p deny -A bad --wrap true)
squeue -h -j "$j" -o "%P %a"

#!/usr/bin/env bash
. "$CASE_LIB"
# Every listed node is allocated: the list raises the node count, and a maximum below it is refused.
for opts in "-w n[2-3]" "-N1-3 -w n[1-2]" "-N3 -w n1" "-w n1,n1"; do
    id=$(submit --hold $opts --wrap true)
    echo "$opts: $(fields "$id" NumNodes ReqNodeList | tr '\n' ' ')"
done
sbatch --hold -N1 -w 'n[1-2]' --wrap true; echo "rc=$?"
sbatch --hold -N2 -w 'n[1-3]' --wrap true; echo "rc=$?"

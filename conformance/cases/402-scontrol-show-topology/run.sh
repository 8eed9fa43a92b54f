#!/usr/bin/env bash
. "$CASE_LIB"
# The topology mode's topology.conf: leaf1 holds this node, leaf2 names only nodes slurm.conf lacks, spine both.
node=$(sinfo -h -N -o %N | head -n1)
scontrol show topology; echo "rc=$?"
scontrol -o show topo spine
scontrol show t leaf2
scontrol show topology "$node" | sed "s/$node/NODE/g"
scontrol show topology absent1
scontrol show topology nosuch; echo "rc=$?"
scontrol show topology leaf1 leaf2; echo "rc=$?"
a=$(submit -H --switches=1@30 -o /dev/null --wrap true)
b=$(submit -H --switches=2@0:45 -o /dev/null --wrap true)
c=$(submit -H -o /dev/null --wrap true)
fields "$a" JobState Switches
fields "$b" Switches
fields "$c" Switches
squeue -h -j "$a,$b,$c" -O reqswitch,wait4switch
scancel "$a" "$b" "$c"

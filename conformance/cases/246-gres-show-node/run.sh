#!/usr/bin/env bash
. "$CASE_LIB"
scontrol show node "$(hostname -s)" | grep -E -o '(Gres|GresUsed|CfgTRES|AllocTRES)=[^ ]*'
sinfo -h -o '%G'

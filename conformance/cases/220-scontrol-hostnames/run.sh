#!/usr/bin/env bash
. "$CASE_LIB"
scontrol show hostnames 'n[1-3],m[08-10]'; scontrol show hostlist n1,n2,n3,m8; scontrol show hostlistsorted n3,n1,n2

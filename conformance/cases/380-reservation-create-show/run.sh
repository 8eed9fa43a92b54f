#!/usr/bin/env bash
. "$CASE_LIB"
# Reservations outlive the case: remove them whatever happens.
trap '_cleanup_jobs; for r in c380a c380b c380c c380_0; do scontrol delete reservation $r >/dev/null 2>&1; done' EXIT
h=$(hostname -s)
# Jobs an earlier case left behind must be gone, or the node would not read as reserved.
wait_node idle
scontrol show reservation; echo "rc=$?"
sinfo -T; echo "rc=$?"
scontrol create reservation ReservationName=c380a StartTime=now Duration=10 Nodes="$h" Users=root; echo "rc=$?"
wait_node resv
sinfo -h -o '%P %a %t %T %D %N'
scontrol show node "$h" | grep -o 'State=[^ ]*'
scontrol show reservation c380a; echo "rc=$?"
scontrol -o show res; echo "rc=$?"
sinfo -T; echo "rc=$?"
sinfo -T -h; echo "rc=$?"
# Refusals: a node and time already reserved, unknown users, nodes and partitions, missing or bad arguments.
scontrol create reservation ReservationName=c380b StartTime=now+30 Duration=10 Nodes="$h" Users=root; echo "rc=$?"
scontrol create reservation ReservationName=c380b StartTime=now+2days Duration=10 Nodes="$h" Users=nosuchuser380; echo "rc=$?"
scontrol create reservation ReservationName=c380b StartTime=now+2days Duration=10 Nodes=nosuchnode380 Users=root; echo "rc=$?"
scontrol create reservation ReservationName=c380b StartTime=now+2days Duration=10 Nodes=ALL Users=root PartitionName=nosuch; echo "rc=$?"
scontrol create reservation ReservationName=c380b StartTime=now+2days Duration=10 Nodes="$h"; echo "rc=$?"
scontrol create reservation ReservationName=c380b StartTime=now+2days Nodes="$h" Users=root; echo "rc=$?"
scontrol create reservation ReservationName=c380b Duration=10 Nodes="$h" Users=root; echo "rc=$?"
scontrol create reservation ReservationName=c380b StartTime=now+2days Duration=10 Users=root; echo "rc=$?"
scontrol create reservation ReservationName=c380b StartTime=now+2days Duration=10 Nodes="$h" Users=root Flags=BOGUS; echo "rc=$?"
scontrol create reservation ReservationName=c380b StartTime=now+2days Duration=10 Nodes="$h" Users=root Bogus=1; echo "rc=$?"
scontrol create reservation ReservationName=c380b StartTime=now+2days Duration=abc Nodes="$h" Users=root; echo "rc=$?"
scontrol create reservation ReservationName=c380a StartTime=now+2days Duration=10 Nodes="$h" Users=root; echo "rc=$?"
# Future reservations: by node count (the default partition), by ALL of a partition, with flags.
scontrol create reservation ReservationName=c380b StartTime=now+2days Duration=1-02:03:04 NodeCnt=1 Accounts=acct380 Flags=MAINT; echo "rc=$?"
scontrol create reservation ReservationName=c380c StartTime=now+4days EndTime=now+5days Nodes=ALL PartitionName=debug Users=root Flags=IGNORE_JOBS; echo "rc=$?"
scontrol show reservation c380b
scontrol show reservation c380c
sinfo -T
scontrol update ReservationName=c380b Duration=20 Users=root Flags=IGNORE_JOBS; echo "rc=$?"
scontrol update reservation ReservationName=c380b Flags-=MAINT; echo "rc=$?"
scontrol show reservation c380b
scontrol update ReservationName=c380b Users=nosuchuser380; echo "rc=$?"
scontrol update ReservationName=c380b Bogus=3; echo "rc=$?"
# Listings show reservations in the order they were made, not by name.
scontrol create reservation ReservationName=c380_0 StartTime=now+6days Duration=10 Nodes="$h" Users=root; echo "rc=$?"
scontrol show reservation | grep -o 'ReservationName=[^ ]*'
sinfo -T -h | awk '{print $1}'
scontrol delete reservation c380_0; echo "rc=$?"
scontrol update ReservationName=nosuch380 Duration=20; echo "rc=$?"
scontrol show reservation nosuch380; echo "rc=$?"
scontrol delete reservation nosuch380; echo "rc=$?"
scontrol delete reservation c380a; echo "rc=$?"
scontrol delete ReservationName=c380b; echo "rc=$?"
scontrol delete reservation=c380c; echo "rc=$?"
wait_node idle
sinfo -h -o '%t'
scontrol show reservation; echo "rc=$?"

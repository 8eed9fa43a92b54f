#!/usr/bin/env bash
. "$CASE_LIB"
scontrol show config | grep -E '^(ClusterName|SlurmctldPort|SlurmdPort|SelectType|SelectTypeParameters|SchedulerType|DefMemPerCPU|MaxArraySize|MaxJobCount|MinJobAge|FirstJobId|GresTypes|KillWait|ReturnToService|SlurmUser|SlurmdUser|StateSaveLocation|SlurmdSpoolDir|AuthType|ProctrackType|TaskPlugin) ' | sed 's/  */ /g'

#!/usr/bin/env bash
# The sacct commands whose output expected.txt holds: run over the capture's window, in UTC.
S=2026-12-07T23:51:20
E=2026-12-07T23:52:35
W=(-a -S "$S" -E "$E")
echo "== default"
sacct "${W[@]}"
echo "== fields"
sacct "${W[@]}" -P -o JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode,DerivedExitCode,NNodes,NodeList,NTasks,User,UID,Group,GID,WorkDir,Timelimit,TimelimitRaw,QOS,ReqTRES,AllocTRES,Submit,Eligible,Start,End,Elapsed,ElapsedRaw,CPUTime,CPUTimeRAW,Priority,Reason,ReqMem,ReqCPUS,JobIDRaw
echo "== X p"
sacct "${W[@]}" -X -p
echo "== brief"
sacct "${W[@]}" -b
echo "== user root name"
sacct "${W[@]}" -u root --name c625bad,c625steps -o JobID,State,ExitCode

#!/usr/bin/env bash
. "$CASE_LIB"
ok=$(submit -J c430ok -o /dev/null --wrap 'true')
bad=$(submit -J c430bad -o /dev/null --wrap 'exit 3')
wait_done "$ok" "$bad"
wait_acct "$ok" "$bad"
# Past MinJobAge (5 s in this mode): squeue no longer lists them, accounting still does.
sleep 7
echo "squeue: $(squeue -h -j "$ok,$bad" 2>/dev/null | wc -l)"
sacct -j "$ok,$bad"
sacct -j "$ok,$bad" -P -o JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode,DerivedExitCode,NNodes,NodeList,NTasks,User,UID,Group,GID,WorkDir,Timelimit,QOS,Cluster,ReqTRES,AllocTRES
sacct -j "$ok,$bad" -X -p
sacct -j "$ok,$bad" -b
sacct -X --parsable2 --noheader --format=JobIdRaw,State --name c430bad -S now-10minutes
sacct -X -n -P -o JobID,State -u root -j "$ok"

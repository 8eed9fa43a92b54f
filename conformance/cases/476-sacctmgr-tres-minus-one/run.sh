#!/usr/bin/env bash
. "$CASE_LIB"
cleanup() {
    sacctmgr -i delete user root account=c476 >/dev/null 2>&1
    sacctmgr -i delete account c476,c476b >/dev/null 2>&1
    sacctmgr -i delete qos c476,c476b >/dev/null 2>&1
}
trap cleanup EXIT
q() {
    echo "\$ sacctmgr $*"
    sacctmgr "$@"
    echo "rc=$?"
}
sacctmgr -i add account c476 GrpTRES=cpu=4 >/dev/null
sacctmgr -i add qos c476 GrpTRES=cpu=4 >/dev/null
q -i modify account c476 set GrpTRES=-1 GrpJobs=3
q -i modify account c476 set MaxTRES=-1
q -i add user root account=c476 MaxTRES=-1
q -i modify user root where account=c476 set GrpTRES=-1
q -i add account c476b GrpTRES=-1
q -i add qos c476b GrpTRES=-1
q -i modify qos c476 set GrpTRES=-1 MaxTRESPerUser=-1
sacctmgr -n -P show assoc where account=c476,c476b format=account,user,grpjobs,grptres,maxtres
sacctmgr -n -P show qos c476,c476b format=name,grptres,maxtrespu

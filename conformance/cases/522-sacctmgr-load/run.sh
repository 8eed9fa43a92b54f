#!/usr/bin/env bash
. "$CASE_LIB"
# stdout as is, stderr with sacctmgr's timing masked.
q() {
    echo "\$ sacctmgr $*"
    { sacctmgr "$@"; echo "rc=$?"; } 2>&1 1>&3 3>&- | sed 's/usec=[0-9]*/usec=N/' >&2
} 3>&1
cleanup() {
    sacctmgr -i delete user c522da,c522er,c522fr >/dev/null 2>&1
    sacctmgr -i delete account c522ge >/dev/null 2>&1
    sacctmgr -i delete account c522bio,c522eng >/dev/null 2>&1
}
trap cleanup EXIT
cluster=$(sacctmgr -n -P show cluster format=cluster | head -n1)
cat >"$CASE_TMP/site.cfg" <<CFG
# A site's file, written by hand
Cluster - '$cluster':Fairshare=1:QOS='normal'
Parent - 'root'
Account - 'c522bio':Description='Biology':Organization='Science':Fairshare=20:GrpTRES=cpu=16:GrpJobs=30
Account - 'c522eng':Description='Engineering' # the org defaults to the name
Parent - 'c522bio'
User - 'c522da':DefaultAccount='c522bio':Fairshare=2:MaxJobs=3
Account - 'c522ge':Description='Genomics Lab':\\
Fairshare=5:QOS='normal'
Parent - 'c522ge'
User - 'c522er':DefaultAccount='c522ge':AdminLevel='Operator':MaxSubmitJobs=10:MaxTRESPerJob=mem=8g,cpu=4
User - 'c522da'
Parent - 'c522eng'
User - 'C522FR':Fairshare=3:GrpTRES=cpu=4:MaxWall='2-00:00:00':GrpSubmit=9
CFG
echo n | q load file="$CASE_TMP/site.cfg"
q show assoc format=account,user where account=c522bio,c522eng,c522ge
q -i load file="$CASE_TMP/site.cfg"
q show assoc format=account,user,parentname,share,grptres,grpjobs,grpsubmit,maxjobs,maxsubmit,maxtres,maxwall,qos,defaultqos where account=c522bio,c522eng,c522ge
q show account c522bio,c522eng,c522ge
q show user c522da,c522er,c522fr
q -i load file="$CASE_TMP/site.cfg"
cat >"$CASE_TMP/mod.cfg" <<CFG
Cluster - '$cluster'
Parent - 'root'
Account - 'c522bio':Description='Biology Dept':Organization='Science':Fairshare=25:GrpTRES=cpu=32:GrpJobs=40
Account - 'c522eng':MaxJobs=5
Parent - 'c522bio'
User - 'c522da':DefaultAccount='c522bio':Fairshare=4:MaxJobs=3:AdminLevel='Operator'
Parent - 'c522eng'
User - 'c522da'
CFG
echo y | q load file="$CASE_TMP/mod.cfg"
q show assoc format=account,user,share,grptres,grpjobs,maxjobs where account=c522bio,c522eng
q show user c522da
q dump "$cluster" file="$CASE_TMP/after.cfg"
grep c522 "$CASE_TMP/after.cfg"

#!/usr/bin/env bash
. "$CASE_LIB"
q() { echo "\$ sacctmgr $*"; sacctmgr "$@"; echo "rc=$?"; }
cleanup() {
    sacctmgr -i delete user c437al,c437bo >/dev/null 2>&1
    sacctmgr -i delete account c437a2 >/dev/null 2>&1
    sacctmgr -i delete account c437a1 >/dev/null 2>&1
    sacctmgr -i delete qos c437hi >/dev/null 2>&1
}
trap cleanup EXIT
q -i add qos c437hi
q -i add account c437a1 description=d1 organization=o1
q -i add account c437a2 parent=c437a1
q -i add account c437a1
q -i add account c437a3 parent=c437nosuch
q -i add user c437al account=c437a1
q -i add user c437bo account=c437a1,c437a2 defaultaccount=c437a2 qos=normal,c437hi defaultqos=c437hi
q -i add user c437ca
q -i add user c437da account=c437nosuch
q show account c437a1,c437a2
q show user c437al,c437bo
q show user c437bo withassoc
q show assoc where account=c437a1,c437a2
q show assoc format=cluster,account,user,qos,defaultqos,fairshare where user=c437bo
q -i modify user c437bo set qos+=normal
q -i modify user where name=c437bo account=c437a1 set fairshare=10 maxjobs=4
q -P show assoc where user=c437bo
q -i modify user c437al set defaultaccount=c437a2
q -i modify account c437a1 set description=new
q show account c437a1
q -i delete user c437al
q -i delete account c437a1
q -i delete account root
q show assoc format=account,user,share where account=c437a2
q -i delete user c437bo
q -i delete account c437a2
q -i delete account c437a1
q -i delete qos c437hi

#!/usr/bin/env bash
. "$CASE_LIB"
S="sacctmgr -i"
cleanup() {
    $S modify account root set qos-=c527x3 >/dev/null 2>&1
    $S delete user c527u >/dev/null 2>&1
    $S delete account c527e2 >/dev/null 2>&1
    $S delete account c527e1,c527f1,c527f2,c527f3 >/dev/null 2>&1
    $S delete qos c527x1,c527x2,c527x3,c527y1,c527y2,c527y3,c527y4 >/dev/null 2>&1
}
trap cleanup EXIT
show() {
    echo "-- $*"
    sacctmgr -n -P show assoc format=account,user,qos,defaultqos | grep -E '^(c527|root\|)'
}
dump() {
    cluster=$(sacctmgr -n -P show cluster format=cluster | head -n1)
    $S dump "$cluster" file="$CASE_TMP/d.cfg" >/dev/null 2>&1
    grep -E "^(Cluster|Parent|User|Account) - '(c527|root|$cluster)" "$CASE_TMP/d.cfg"
}
$S add qos c527x1,c527x2,c527x3 >/dev/null
$S add account c527e1 >/dev/null
$S add account c527e2 parent=c527e1 >/dev/null
$S add user c527u account=c527e2 >/dev/null
show fresh
$S modify account c527e1 set qos+=c527x1 >/dev/null; show "e1 qos+=x1"
dump
$S modify account c527e2 set qos+=c527x2 >/dev/null; show "e2 qos+=x2"
$S modify account root set qos+=c527x3 >/dev/null; show "root qos+=x3"
dump
$S modify account c527e1 set qos=normal,c527x1,c527x2 >/dev/null; show "e1 qos=normal,x1,x2"
$S modify account c527e1 set qos-=c527x1 >/dev/null; show "e1 qos-=x1"
$S modify user c527u set qos-=c527x2 >/dev/null; show "u qos-=x2"
dump
$S modify account c527e1 set qos= >/dev/null; show "e1 qos= (nothing)"
$S delete qos c527x2 >/dev/null; show "delete x2"
dump
$S modify account c527e1 set qos-=normal,c527x3 >/dev/null; show "e1 qos-=normal,x3"
$S modify account c527e2 set qos=c527x1 >/dev/null; show "e2 qos=x1"
$S modify account c527e2 set qos-=c527x1 >/dev/null; show "e2 qos-=x1 (its last)"
dump
$S modify account root set qos-=c527x3 >/dev/null
$S delete user c527u >/dev/null; $S delete account c527e2 >/dev/null; $S delete account c527e1 >/dev/null
$S delete qos c527x1,c527x3 >/dev/null
# Deleting a QOS strips ",ID," from every list with both commas.
$S add qos c527y1,c527y2,c527y3,c527y4 >/dev/null
$S add account c527f1 qos=normal,c527y1,c527y2,c527y3 >/dev/null
$S add account c527f2,c527f3 >/dev/null
$S modify account c527f2 set qos+=c527y1,c527y2,c527y3 >/dev/null
$S modify account c527f3 set qos-=c527y1,c527y2 >/dev/null
$S modify account c527f3 set qos+=c527y4 >/dev/null
show start; dump
$S delete qos c527y1 >/dev/null; show "delete y1"; dump
$S delete qos c527y2 >/dev/null; show "delete y2"; dump

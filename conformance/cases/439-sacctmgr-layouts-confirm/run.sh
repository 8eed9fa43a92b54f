#!/usr/bin/env bash
. "$CASE_LIB"
q() { echo "\$ sacctmgr $*"; sacctmgr "$@"; echo "rc=$?"; }
trap 'sacctmgr -i delete qos c439a >/dev/null 2>&1' EXIT
echo n | sacctmgr add qos c439a priority=5
echo "rc=$?"
q -n show qos c439a format=name
echo y | sacctmgr add qos c439a priority=5
echo "rc=$?"
q -n show qos c439a format=name,priority
q -p show qos c439a format=name,priority
q -P -n show qos c439a format=name%20,priority
echo y | sacctmgr delete qos c439a
echo "rc=$?"
q -P show cluster format=cluster,share,qos,defaultqos

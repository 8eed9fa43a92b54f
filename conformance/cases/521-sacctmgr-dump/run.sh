#!/usr/bin/env bash
. "$CASE_LIB"
q() { echo "\$ sacctmgr $*"; sacctmgr "$@"; echo "rc=$?"; }
cleanup() {
    sacctmgr -i delete user c521al,c521bo,c521ca >/dev/null 2>&1
    sacctmgr -i delete account c521th >/dev/null 2>&1
    sacctmgr -i delete account c521ph,c521ch >/dev/null 2>&1
    sacctmgr -i delete qos c521hi >/dev/null 2>&1
}
trap cleanup EXIT
cluster=$(sacctmgr -n -P show cluster format=cluster | head -n1)
S="sacctmgr -i"
$S add qos c521hi priority=10 >/dev/null
$S add account c521ph description="Physics Dept" organization=science fairshare=50 grptres=cpu=8,mem=4G maxjobs=10 >/dev/null
$S add account c521th parent=c521ph fairshare=5 maxwall=1:00:00 qos=normal,c521hi defaultqos=c521hi >/dev/null
$S add account c521ch >/dev/null
$S add user c521al account=c521ph fairshare=3 maxjobs=2 >/dev/null
$S add user c521al account=c521th >/dev/null
$S add user c521bo account=c521th defaultaccount=c521th adminlevel=operator maxsubmitjobs=7 grpjobs=3 maxtres=cpu=2 >/dev/null
$S add user c521ca account=c521ch partition=debug >/dev/null
q dump "$cluster" file="$CASE_TMP/d1.cfg"
cat "$CASE_TMP/d1.cfg"
cd "$CASE_TMP" || exit 1
q dump cluster="$cluster"
cmp "$CASE_TMP/d1.cfg" "$CASE_TMP/$cluster.cfg" && echo "same file"
q dump
q dump c521nosuch file="$CASE_TMP/x.cfg"
q dump "$cluster" file="$CASE_TMP/d2.cfg" bogus=1
cmp "$CASE_TMP/d1.cfg" "$CASE_TMP/d2.cfg" && echo "same file"
q dump "$cluster" "$cluster" file="$CASE_TMP/d3.cfg"
q dump "$cluster" file=/nonexistent-dir/d.cfg

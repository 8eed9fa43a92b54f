#!/usr/bin/env bash
. "$CASE_LIB"
q() { echo "\$ sacctmgr $*"; sacctmgr "$@"; echo "rc=$?"; }
trap 'sacctmgr -i delete qos c438z >/dev/null 2>&1' EXIT
q -i add qos c438y badkey=1
q -i add qos
q -i add qos c438z priority=abc
q -i add foo c438z
q show foo
q -i modify qos c438z set badkey=1
q -i modify qos c438z set preempt=c438nosuch
q show qos c438z format=name,bogus
q -i delete qos c438z
q -i delete user c438nosuch

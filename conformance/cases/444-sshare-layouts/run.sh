#!/usr/bin/env bash
. "$CASE_LIB"
s() { echo "\$ sshare $*"; sshare "$@"; echo "rc=$?"; }
cleanup() {
    sacctmgr -i delete user c444u1,c444u2,c444u3 >/dev/null 2>&1
    sacctmgr -i delete account c444c >/dev/null 2>&1
    sacctmgr -i delete account c444a,c444b >/dev/null 2>&1
    sacctmgr -i delete account c444top >/dev/null 2>&1
}
trap cleanup EXIT
# Under an account of their own, so their normalised shares do not depend on what else is under root.
sacctmgr -i add account c444top >/dev/null
sacctmgr -i add account c444a parent=c444top fairshare=10 >/dev/null
sacctmgr -i add account c444b parent=c444top fairshare=30 >/dev/null
sacctmgr -i add account c444c parent=c444a fairshare=5 >/dev/null
sacctmgr -i add user c444u1 account=c444a fairshare=2 >/dev/null
sacctmgr -i add user c444u2 account=c444b >/dev/null
sacctmgr -i add user c444u3 account=c444c fairshare=7 >/dev/null
fresh=Account,User,RawShares,NormShares,RawUsage,EffectvUsage
s -a -A c444a,c444b,c444c -o $fresh
s -a -A c444a,c444c -P -o $fresh
s -a -A c444b -p -o account,user,rawsh,norms
s -A c444a -o $fresh
s -A c444a,c444b -u c444u2 -o $fresh
s -U -u c444u1,c444u3 -n -o $fresh
s -U -a -A c444b,c444c -P -n -o user,account,rawshares
s -a -A c444a -o "Account%-12,User%8,RawShares%4,NormShares%9"
s -a -A c444a -h -o Account,RawUsage%3
s -A c444nosuch
s -l -A c444nosuch
s -m -A c444nosuch
s -l -m -P -A c444nosuch
s -p -A c444nosuch
s -u c444nosuch -A c444b -o $fresh

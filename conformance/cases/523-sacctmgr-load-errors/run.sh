#!/usr/bin/env bash
. "$CASE_LIB"
cleanup() { sacctmgr -i delete account c523x4 >/dev/null 2>&1; }
trap cleanup EXIT
cluster=$(sacctmgr -n -P show cluster format=cluster | head -n1)
f=$CASE_TMP/b.cfg
t() {
    echo "--- $1"
    printf '%b' "$2" >"$f"
    shift 2
    { sacctmgr -i load file="$f" "$@"; echo "rc=$?"; } 2>&1 1>&3 3>&- | sed 's/usec=[0-9]*/usec=N/' >&2
} 3>&1
t "no cluster line" "Parent - 'root'\nAccount - 'c523x1'\n"
t "unknown object" "Cluster - '$cluster'\nFoo - 'x'\n"
t "parent not added" "Cluster - '$cluster'\nParent - 'c523nosuch'\nAccount - 'c523x2'\n"
t "unknown option" "Cluster - '$cluster'\nParent - 'root'\nAccount - 'c523x3':Bogus=1\n"
t "bad number" "Cluster - '$cluster'\nParent - 'root'\nAccount - 'c523x3':MaxJobs=abc\n"
t "no name" "Cluster - '$cluster'\nAccount - :Description='y'\n"
t "two names" "Cluster - '$cluster'\nParent - 'root'\nAccount - 'c523x3':'c523x5'\n"
t "nothing after object" "Cluster - '$cluster'\nAccount -\n"
t "no parent line" "Cluster - '$cluster'\nAccount - 'c523x4'\n"
t "no dash" "Cluster - '$cluster'\nAccount c523x5\n"
t "cluster= names it" "Cluster - 'c523other'\nParent - 'root'\n" cluster="$cluster"
t "unknown word first" "Cluster - '$cluster'\nParent - 'root'\n" bogus=1
t "two file names" "Cluster - '$cluster'\n" file=c523.cfg
echo "--- no file name"
sacctmgr load; echo "rc=$?"
echo "--- missing file"
sacctmgr load file="$CASE_TMP/c523-missing.cfg"; echo "rc=$?"
sacctmgr -n show account c523x1,c523x2,c523x3,c523x4,c523x5 format=account

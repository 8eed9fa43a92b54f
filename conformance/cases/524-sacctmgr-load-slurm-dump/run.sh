#!/usr/bin/env bash
. "$CASE_LIB"
cleanup() {
    sacctmgr -i delete user c524zoe,c524amy,c524ben >/dev/null 2>&1
    sacctmgr -i delete account c524grp1,c524grp2 >/dev/null 2>&1
    sacctmgr -i delete account c524lab,c524svc >/dev/null 2>&1
    sacctmgr -i delete qos c524hi,c524lo >/dev/null 2>&1
}
trap cleanup EXIT
cluster=$(sacctmgr -n -P show cluster format=cluster | head -n1)
# The dump does not carry QOS definitions (Slurm 22.05's doesn't): they come first, with sacctmgr add qos.
sacctmgr -i add qos c524hi >/dev/null
sacctmgr -i add qos c524lo >/dev/null
# Captured on the cluster 'refcluster'; cluster= loads it into this one.
sacctmgr -i load file="$CASE_DIR/slurm-dump.cfg" cluster="$cluster" >"$CASE_TMP/load.out" 2>"$CASE_TMP/load.err"
echo "load rc=$?"
sed 's/usec=[0-9]*/usec=N/' "$CASE_TMP/load.err"
cat "$CASE_TMP/load.out"
sacctmgr dump "$cluster" file="$CASE_TMP/again.cfg" 2>/dev/null
echo "dump rc=$?"
sed "s/^Cluster - '$cluster'/Cluster - 'refcluster'/" "$CASE_TMP/again.cfg" >"$CASE_TMP/again-normalised.cfg"
if cmp -s "$CASE_DIR/slurm-dump.cfg" "$CASE_TMP/again-normalised.cfg"; then
    echo "identical to Slurm's dump"
else
    diff "$CASE_DIR/slurm-dump.cfg" "$CASE_TMP/again-normalised.cfg"
fi

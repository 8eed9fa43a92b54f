#!/usr/bin/env bash
. "$CASE_LIB"
r() { echo "\$ sreport $*"; echo "\$ sreport $*" >&2; sreport "$@"; rc=$?; echo >&2; echo "rc=$rc"; }
w="start=2020-01-01 end=2020-01-02"
r cluster UserUtilizationByWckey $w
r cluster uw $w
r cluster WCKeyUtilizationByUser $w
r cluster wxyz $w
r -P cluster uw $w
r -n -t minper cluster wckeyutilizationbyuser $w
r cluster uw format=wckey%20,login,used,energy,acc,bogus $w
r cluster wckeyutil mykey wckeys=a,b user=Root withdeleted all_clusters $w
r cluster uw c=x clusters=nosuch bogus=1 $w
r cluster uw clu=nosuch $w

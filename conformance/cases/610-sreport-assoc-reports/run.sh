#!/usr/bin/env bash
. "$CASE_LIB"
r() { echo "\$ sreport $*"; echo "\$ sreport $*" >&2; sreport "$@"; rc=$?; echo >&2; echo "rc=$rc"; }
w="start=2020-01-01 end=2020-01-02"
r cluster AccountUtilizationByUser $w
r cluster accountutilizationbyuser tree $w
r cluster axyz start=2020-01-01T10:29:30 end=2020-01-01T12:00
r cluster UserUtilizationByAccount $w
r cluster ua $w
r cluster UserUtilizationByAx $w
r -P cluster ua $w
r -p -t percent cluster AccountUtilizationByUser $w
r -n cluster ua $w
r -n -p cluster au $w
for t in s h p secper minper hourper; do r -t $t cluster ua $w; done
r cluster au format=login,proper%20,used%5,energy,tresname,acc,cl,idle,wckey,count $w
r -t minper cluster au format=alloc,down,idle,over,plannedd,rep,res,used,e $w
r cluster au format=a,p,pr,bogus $w
r cluster ua format= $w
r cluster ua users=Alice,bob accounts=x acct=y $w
r cluster ua alice clusters=nosuch $w
r cluster au all_clusters tree $w
r cluster au a=1 bogus=2 $w
r user top $w
r user topusage TopCount=3 $w
r user t topcount=-1 group $w
r user tx topcount=0 $w
r user top topcount=abc $w
r user top topcount=0x $w
r user top topcount=7x $w
r -t hourper user top $w
r -P -s name user top format=a,c,e,l,p,t%3,u,tresname,x $w
r -n user top format=login%4,used $w
r user top users=root accounts=root g $w
r user top acct=root u=x tree $w

#!/usr/bin/env bash
. "$CASE_LIB"
r() { echo "\$ sreport $*"; echo "\$ sreport $*" >&2; sreport "$@"; rc=$?; echo >&2; echo "rc=$rc"; }
w="start=2020-01-01 end=2020-01-02"
r cluster utilization $w
r cluster Utilization start=2020-01-01T10:29:30 end=2020-01-01T12:00
r cluster util start=2020-01-01T10:29:29 end=2020-01-01T10:40
r -P cluster utilization $w
r -p -t percent cluster utilization $w
r -n cluster utilization $w
r -n -P cluster utilization $w
for t in s m h p secper minper hourper MinPer; do r -t $t cluster utilization $w; done
r cluster utilization format=cl,idle%12,tresc,TresName $w
r -P cluster utilization format=Cluster,Allocated,Over,rep $w
r cluster utilization format=bogus,idle $w
r cluster utilization format= $w
r cluster utilization bogus=1 $w
r cluster utilization clusters=nosuch $w
r cluster utilization nosuch $w
r cluster utilization all_clusters $w
r cluster utilization start=2020-01-01 end=2019-06-01

#!/usr/bin/env bash
. "$CASE_LIB"
r() { echo "\$ sreport $*"; echo "\$ sreport $*" >&2; sreport "$@"; rc=$?; echo >&2; echo "rc=$rc"; }
w="start=2020-01-01 end=2020-01-02"
r --bogus
r -x
r -t
r --immediate
r -a -M x cluster utilization
r -t bogus -n cluster utilization $w
r -s bogus -n cluster utilization $w
r cluster bogus
r cluster
r -Q cluster
r c utilization
r user bogus
r user
r job bogus
r resv bogus
r reservation
r bogus
r -V
r version

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H --exclusive --wrap true)
fields "$id" OverSubscribe
id2=$(submit -H --oversubscribe --wrap true)
fields "$id2" OverSubscribe

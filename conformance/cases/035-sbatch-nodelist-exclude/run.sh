#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit -H -w "$(hostname -s)" --wrap true); fields "$id" ReqNodeList ExcNodeList
id=$(submit -H -x "$(hostname -s)" --wrap true); fields "$id" ReqNodeList ExcNodeList

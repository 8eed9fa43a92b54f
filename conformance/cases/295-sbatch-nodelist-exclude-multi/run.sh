#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -w 'n[2-3]' -o a.out --wrap 'hostname'); wait_done "$a"
b=$(submit -N2 -x n1 -o b.out --wrap 'hostname'); wait_done "$b"
c=$(submit -w n3 -o c.out --wrap 'hostname'); wait_done "$c"
for j in a b c; do cat "$j.out"; done
fields "$a" NodeList ReqNodeList NumNodes
fields "$b" NodeList ExcNodeList NumNodes
fields "$c" NodeList ReqNodeList NumNodes

#!/usr/bin/env bash
. "$CASE_LIB"
echo previous > out.txt
id=$(submit -o out.txt --open-mode=append --wrap 'echo appended'); wait_done "$id"
cat out.txt
echo previous > trunc.txt
id=$(submit -o trunc.txt --wrap 'echo truncated'); wait_done "$id"
cat trunc.txt

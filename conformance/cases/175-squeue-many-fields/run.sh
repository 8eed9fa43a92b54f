#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J many -n2 --time=30 --mem=100M --nice=3 --comment=cmt --wrap true)
squeue -h -j "$a" -o '%A|%a|%b|%c|%C|%d|%D|%e|%f|%F|%g|%G|%h|%H|%i|%I|%j|%J|%k|%K|%l|%L|%m|%M|%n|%N|%O|%P|%q|%r|%R|%S|%t|%T|%u|%U|%v|%V|%w|%W|%x|%y|%z|%Z'

#!/usr/bin/env bash
. "$CASE_LIB"
r() { echo "\$ sreport $*"; echo "\$ sreport $*" >&2; sreport "$@"; rc=$?; echo >&2; echo "rc=$rc"; }
# i INPUT [OPTIONS]: sreport reading INPUT (printf format) on stdin.
i() { local input=$1; shift; echo "\$ printf '$input' | sreport $*"; echo "\$ printf '$input' | sreport $*" >&2; printf "$input" | sreport "$@"; rc=$?; echo >&2; echo "rc=$rc"; }
w="start=2020-01-01 end=2020-01-02"
r --help
r -h
r --usage
r help
r help x
r -n --help
i 'version\nquit\n'
i 'version\n'
i ''
i '#comment\n\nversion x\nhelp\nexit\n'
i 'bogus\nquit x\nversion\n'
i 'exit\nversion\n'
i '\\q\nversion\n'
i 'q\nexi\n'
i 'cluster\n!!\nquiet\ncluster\nquiet 1\nuser\n'
i 'verbose x\nverbose\ncluster\nv\n'
i 'time\ntime bogus\nsort\nsort bogus\nlocal\nlocal 1\nparsable x\nnonparsable x\nparsable2 x\n'
i "parsable2\ncluster ua $w\nparsable\ncluster au $w\nnonparsable\ntime percent\nuser top $w\nsort name\nexit\n"
i "cluster utilization $w\n!!\n" -n -P
i "time s\nuser top $w\n" -t hours

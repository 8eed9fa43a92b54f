#!/usr/bin/env bash
. "$CASE_LIB"
s() { echo "\$ sshare $*"; sshare "$@"; echo "rc=$?"; }
s --help
s --usage
s -e
s --helpformat
s -V
s -o Account,bogus
s --format=nope%5
s --frob

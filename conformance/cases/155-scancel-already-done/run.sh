#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit --wrap true); wait_done "$id"
scancel "$id"; echo "rc=$?"

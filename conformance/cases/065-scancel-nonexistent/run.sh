#!/usr/bin/env bash
. "$CASE_LIB"
scancel 999999; echo "rc=$?"
scancel notanumber; echo "rc=$?"

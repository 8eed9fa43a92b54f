#!/usr/bin/env bash
. "$CASE_LIB"
scancel -Q 999999; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit --wrap true); wait_done "$a"
scontrol show step "$a.3"; echo "rc=$?"
scontrol show step "$a"; echo "rc=$?"
scontrol show step 999999; echo "rc=$?"

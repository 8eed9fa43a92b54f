#!/usr/bin/env bash
. "$CASE_LIB"
scontrol frobnicate; echo "rc=$?"
scontrol show nosuchentity; echo "rc=$?"

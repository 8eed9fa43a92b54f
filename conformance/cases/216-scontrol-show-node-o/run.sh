#!/usr/bin/env bash
. "$CASE_LIB"
scontrol show node -o "$(hostname -s)"

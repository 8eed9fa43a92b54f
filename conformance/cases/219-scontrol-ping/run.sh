#!/usr/bin/env bash
. "$CASE_LIB"
scontrol ping

#!/usr/bin/env bash
. "$CASE_LIB"
sinfo -l

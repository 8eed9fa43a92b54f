#!/usr/bin/env bash
. "$CASE_LIB"
scontrol show partition; scontrol show partition debug -o

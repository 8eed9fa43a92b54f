#!/usr/bin/env bash
. "$CASE_LIB"
mkdir sub
id=$(submit --chdir=sub --wrap 'pwd'); wait_done "$id"
ls; ls sub; cat sub/slurm-*.out; field "$id" WorkDir

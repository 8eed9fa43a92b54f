#!/usr/bin/env bash
. "$CASE_LIB"
sinfo -h -O NodeList,CPUs,Memory,Gres,StateLong

#!/usr/bin/env bash
. "$CASE_LIB"
sprio; echo "rc=$?"
sprio -l; echo "rc=$?"
# Option errors are found before the plugin is looked at.
sprio -l -o %i; echo "rc=$?"
sprio --frob; echo "rc=$?"
sprio -j 12,abc; echo "rc=$?"
sprio extra; echo "rc=$?"
sprio --usage; echo "rc=$?"
sprio -V; echo "rc=$?"

#!/usr/bin/env bash
. "$CASE_LIB"
id=$(submit "$CASE_DIR/job.sh"); echo "rc=$? id=${id:+yes}"

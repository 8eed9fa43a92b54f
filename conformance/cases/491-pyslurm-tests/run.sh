#!/usr/bin/env bash
# pyslurm (built from shared/vendor/pyslurm-22.5.3.tar.gz with Debian's python3 and cython3 against Debian's
# headers, conformance/pyslurm/build.sh) runs its own tests against the target: real libslurm on Slurm,
# libspur_compat.so as libslurm.so.38 on Spur. The output is the list of passing test ids, so a test that passes on
# Slurm and not on Spur shows as a diff line. The slurmdbd tests run in the accounting mode (case 492).
# tests/integration and tests/unit run as two pytest sessions: each directory has its own util.py and same-named
# test modules, which one session would mix up.
. "$CASE_LIB"
run=$CASE_DIR/../../pyslurm/run-tests.sh
"$run" tests/integration --ignore=tests/integration/test_db_connection.py \
    --ignore=tests/integration/test_db_job.py --ignore=tests/integration/test_db_qos.py
"$run" tests/unit

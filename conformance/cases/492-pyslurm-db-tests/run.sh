#!/usr/bin/env bash
# pyslurm's slurmdbd tests (connection, jobs, QOS) against the accounting-mode target; see case 491.
. "$CASE_LIB"
"$CASE_DIR/../../pyslurm/run-tests.sh" tests/integration/test_db_connection.py \
    tests/integration/test_db_job.py tests/integration/test_db_qos.py

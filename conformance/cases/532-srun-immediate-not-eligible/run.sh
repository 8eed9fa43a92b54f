#!/usr/bin/env bash
# srun --immediate of a job that is not eligible yet (held, or beginning later) is refused at once as a dependency
# problem, as slurmctld fails such a job (SchedMD's test_--immediate.py); an eligible one runs.
. "$CASE_LIB"
srun --immediate --hold pwd >/dev/null; echo "rc=$?"
srun --immediate --begin=now+1hour true; echo "rc=$?"
srun --immediate true; echo "rc=$?"

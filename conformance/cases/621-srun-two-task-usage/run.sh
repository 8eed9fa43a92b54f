#!/usr/bin/env bash
# A two-task srun step in a batch job: task 0 holds 60 MB, task 1 120 MB and burns 0.5 s of CPU more, both for
# 35 s (past jobacct_gather's default 30 s sample). sstat while it runs and sacct after name task 1 for the largest
# memory and task 0 for the least CPU, and average over both; values are put in buckets (case 620's bucket.sh):
# MaxRSS 115-170 MiB, AveRSS 80-125 MiB. The batch step itself (bash and srun) stays small.
. "$CASE_LIB"
. "$CASE_DIR/../620-srun-step-usage/bucket.sh"
cat >two.sh <<'SCRIPT'
#!/bin/bash
srun -n2 /usr/bin/python3 -c '
import os, time
rank = int(os.environ["SLURM_PROCID"])
b = b"x" * ((rank + 1) * 60 << 20)
while rank == 1 and time.process_time() < 0.5:
    pass
open("started.%d" % rank, "w").close()
time.sleep(35)'
SCRIPT
j=$(submit -J c621 -n2 -o /dev/null two.sh)
wait_state "$j" RUNNING
while [[ ! -e started.0 || ! -e started.1 ]]; do sleep 0.1; done; sleep 1
echo "== sstat while it runs"
export BIG_ROWS='^[0-9]+[.]0$' RSS_LO=80 RSS_HI=170 VM_LO=80 VM_HI=400
sstat -P -j "$j.0" -o JobID,NTasks,MaxRSS,MaxRSSNode,MaxRSSTask,MaxVMSizeTask,MinCPUNode,MinCPUTask | bucket
wait_done "$j"
wait_acct "$j"
echo "== sacct after"
export RSS_LO=115 RSS_HI=170 VM_LO=115 VM_HI=400
sacct -P -j "$j" -o JobID,JobName,State,NTasks,MaxRSS,MaxRSSNode,MaxRSSTask | bucket
# The batch step's virtual size is srun's own (Spur's srun maps more than Slurm's: threads), so only the step's.
sacct -P -j "$j" -o JobID,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask | bucket | grep -v '^N[.]batch|'
sacct -P -j "$j" -o JobID,TotalCPU,MinCPU,MinCPUTask,AveCPU,TRESUsageInMaxTask,TRESUsageInMinTask | bucket
export RSS_LO=80 RSS_HI=125
sacct -P -j "$j" -o JobID,AveRSS | bucket

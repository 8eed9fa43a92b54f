#!/usr/bin/env bash
# Numbered steps' usage in sacct. A batch job whose `srun` step burns 2 s of CPU time in user space (however busy
# the host; the clock is read every 100,000 loops, so system time stays small), a task srun runs itself inside the
# script (the step has the CPU time, the batch step does not), and an `srun` of its own allocation whose task holds
# 200 MB for 35 s (past jobacct_gather's default 30 s sample; the node's step supervisor runs it). Measured values
# are put in buckets with the tolerances they are checked to (bucket.sh): TotalCPU and UserCPU 1.5-3.5 s for the busy
# step, MaxRSS 190-260 MiB and MaxVMSize 190-400 MiB for the memory step; every other figure must stay small.
. "$CASE_LIB"
. "$CASE_DIR/bucket.sh"
cat >cpu.sh <<'SCRIPT'
#!/bin/bash
srun -n1 /usr/bin/python3 -c '
import time
while time.process_time() < 2:
    for i in range(100000):
        pass'
SCRIPT
cpu=$(submit -J c620cpu -o /dev/null cpu.sh)
srun -J c620mem -n1 /usr/bin/python3 -c 'import time; b = b"x" * (200 << 20); time.sleep(35)' &
srun_pid=$!
# srun's own allocation: its job id, once it runs.
mem=
while [[ -z $mem ]] && kill -0 "$srun_pid" 2>/dev/null; do
    mem=$(squeue -h -u "$(id -un)" -n c620mem -o %i | head -n1)
    sleep 0.2
done
track "$mem"
wait "$srun_pid"; echo "srun rc=$?"
wait_done "$cpu" "$mem"
wait_acct "$cpu" "$mem"

fields=JobID,JobName,State,NTasks,TotalCPU,UserCPU,SystemCPU,MinCPU,MinCPUNode,MinCPUTask,AveCPU
mem_fields=JobID,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,MaxPages,MaxPagesNode,MaxPagesTask
io_fields=JobID,MaxDiskRead,MaxDiskReadNode,MaxDiskReadTask,AveDiskRead,MaxDiskWrite,MaxDiskWriteNode,MaxDiskWriteTask,AveDiskWrite,AveCPUFreq,ConsumedEnergy,ConsumedEnergyRaw
tres_fields=JobID,TRESUsageInTot,TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMaxTask,TRESUsageInMin,TRESUsageInMinNode,TRESUsageInMinTask,TRESUsageInAve,TRESUsageOutTot,TRESUsageOutMax,TRESUsageOutMaxNode,TRESUsageOutMaxTask
echo "== cpu job (the step srun ran itself in the script)"
# The job's row sums its steps' CPU times, so it is as busy as its step.
export BIG_ROWS='^[0-9]+([.]0)?$' CPU_LO=1.5 CPU_HI=3.5
for f in "$fields" "$mem_fields" "$io_fields" "$tres_fields"; do
    sacct -P -j "$cpu" -o "$f" | bucket
done
echo "== mem job (srun's own allocation, the step supervisor's task)"
export BIG_ROWS='^[0-9]+[.]0$' CPU_HI=0 RSS_LO=190 RSS_HI=260 VM_LO=190 VM_HI=400
for f in "$fields" "$mem_fields" "$io_fields" "$tres_fields"; do
    sacct -P -j "$mem" -o "$f" | bucket
done
echo "-- --noconvert"
sacct -P --noconvert -j "$mem" -o JobID,MaxRSS,MaxVMSize,TRESUsageInMax | bucket
echo "== columns"
sacct -j "$mem" -o JobID,TotalCPU,MaxRSS%12,MaxVMSize,MaxRSSTask | sed -E 's/[0-9]+/N/g'

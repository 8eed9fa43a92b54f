#!/usr/bin/env bash
# sacct's usage fields after a CPU-burning job (2 s busy loop) and a job holding 200 MB for 35 s (past
# jobacct_gather's default 30 s sample). Measured values differ from run to run, so each is put in a bucket with
# the tolerance it is checked to (TotalCPU 1.5-3.5 s, MaxRSS 190-260 MiB, ...); the rest of each value keeps its
# shape (digits become N), so units and layouts still compare.
. "$CASE_LIB"
cat >cpu.sh <<'SCRIPT'
#!/bin/bash
/usr/bin/python3 -c '
import time
end = time.time() + 2
while time.time() < end:
    pass'
SCRIPT
cat >mem.sh <<'SCRIPT'
#!/bin/bash
/usr/bin/python3 -c 'import time; b = b"x" * (200 << 20); time.sleep(35)'
SCRIPT
cpu=$(submit -J c520cpu -o /dev/null cpu.sh)
mem=$(submit -J c520mem -o /dev/null mem.sh)
wait_done "$cpu" "$mem"
wait_acct "$cpu" "$mem"

# bucket KIND: reads `sacct -P` (header first) and prints each value as its bucket or shape.
bucket() {
    awk -F'|' -v kind="$1" '
    function secs(t,   d, p, n) {
        d = 0
        if (t ~ /-/) { split(t, p, "-"); d = p[1]; t = p[2] }
        n = split(t, p, ":")
        if (n == 3) return d * 86400 + p[1] * 3600 + p[2] * 60 + p[3]
        return d * 86400 + p[1] * 60 + p[2]
    }
    function mib(v,   n, u) {
        n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
        if (u == "K") return n / 1024
        if (u == "M") return n
        if (u == "G") return n * 1024
        return n / 1048576
    }
    function shape(v) { gsub(/[0-9]+/, "N", v); return v }
    function one(name, v) {
        if (v == "") return ""
        if (name ~ /^(TotalCPU|UserCPU|cpu)$/ && kind == "cpu")
            return (secs(v) >= 1.5 && secs(v) <= 3.5) ? "cpu-ok" : "cpu-out:" v
        if (name ~ /^(TotalCPU|UserCPU|SystemCPU|cpu|MinCPU|AveCPU)$/)
            return secs(v) < 1.5 ? "cpu-small" : "cpu-big:" v
        if (name ~ /^(MaxRSS|AveRSS|mem)$/ && kind == "mem")
            return (mib(v) >= 190 && mib(v) <= 260) ? "rss-ok" : "rss-out:" v
        if (name ~ /^(MaxVMSize|AveVMSize|vmem)$/ && kind == "mem")
            return (mib(v) >= 190 && mib(v) <= 400) ? "vm-ok" : "vm-out:" v
        if (name ~ /^(MaxRSS|AveRSS|mem|MaxVMSize|AveVMSize|vmem)$/)
            return mib(v) < 100 ? "small" : "big:" v
        if (name ~ /Disk(Read|Write)$|^fs\/disk$/) return "disk"
        if (name == "AveCPUFreq") return "freq"
        return shape(v)
    }
    function tres(name, v,   parts, n, i, kv, out) {
        n = split(v, parts, ",")
        out = ""
        for (i = 1; i <= n; i++) {
            split(parts[i], kv, "=")
            out = out (i > 1 ? "," : "") kv[1] "=" (name ~ /(Node|Task)$/ ? shape(kv[2]) : one(kv[1], kv[2]))
        }
        return out
    }
    NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; print; next }
    {
        line = ""
        for (i = 1; i <= NF; i++) {
            v = (i == 1) ? shape($i) : (h[i] ~ /^TRES/ ? tres(h[i], $i) : one(h[i], $i))
            line = line (i > 1 ? "|" : "") v
        }
        print line
    }'
}

fields=JobID,JobName,State,NTasks,TotalCPU,UserCPU,SystemCPU,MinCPU,MinCPUNode,MinCPUTask,AveCPU
mem_fields=JobID,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,MaxPages,MaxPagesNode,MaxPagesTask
io_fields=JobID,MaxDiskRead,MaxDiskReadNode,MaxDiskReadTask,AveDiskRead,MaxDiskWrite,MaxDiskWriteNode,MaxDiskWriteTask,AveDiskWrite,ConsumedEnergy,ConsumedEnergyRaw
tres_fields=JobID,TRESUsageInTot,TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMaxTask,TRESUsageInMin,TRESUsageInMinNode,TRESUsageInMinTask,TRESUsageInAve,TRESUsageOutTot,TRESUsageOutMax,TRESUsageOutMaxNode,TRESUsageOutMaxTask
for kind in cpu mem; do
    j=${!kind}
    echo "== $kind job"
    sacct -P -j "$j" -o "$fields" | bucket "$kind"
    sacct -P -j "$j" -o "$mem_fields" | bucket "$kind"
    sacct -P -j "$j" -o "$io_fields" | bucket "$kind"
    sacct -P -j "$j" -o "$tres_fields" | bucket "$kind"
    echo "-- --noconvert"
    sacct -P --noconvert -j "$j" -o JobID,MaxRSS,MaxVMSize,TRESUsageInMax | bucket "$kind"
done
echo "== columns"
sacct -j "$mem" -o JobID,TotalCPU,MaxRSS%12,MaxVMSize | sed -E 's/[0-9]+/N/g'
# seff (Slurm's contribs/seff on the Slurm target, `spur seff` on Spur): its lines with the measured figures in
# buckets (CPU Utilized 1-4 s for the busy job; Memory Utilized 190-260 MB for the 200 MB one).
seff_buckets() {
    sed -E \
        -e 's/^(Job ID: )[0-9]+/\1N/' \
        -e "s/^(User\/Group: ).*/\1USER/" \
        -e 's/^(CPU Utilized: )00:00:0[1-4]$/\1cpu-ok/' \
        -e 's/^(CPU Utilized: )00:00:00$/\1cpu-zero/' \
        -e 's/^(CPU Efficiency: )[0-9.]+%/\1N%/' \
        -e 's/^(Job Wall-clock time: )[0-9:]+/\1T/' \
        -e 's/ of [0-9:]+ core-walltime/ of T core-walltime/' \
        -e 's/^(Memory Utilized: )(19[0-9]|2[0-5][0-9])\.[0-9]{2} MB/\1mem-ok/' \
        -e 's/^(Memory Efficiency: )[0-9.]+%/\1N%/'
}
echo "== seff"
seff "$cpu" 2>/dev/null | seff_buckets
seff "$mem" 2>/dev/null | seff_buckets
echo "== seff errors"
# The contributed script's perl warns about FindBin on every run (it never loads FindBin); that is left out.
quiet() { grep -v 'FindBin::Bin'; }
seff 2>&1 | quiet; echo "rc=${PIPESTATUS[0]}"
seff -v 2>&1 | quiet; echo "rc=${PIPESTATUS[0]}"
seff 999999 2>&1 | quiet; echo "rc=${PIPESTATUS[0]}"

# bucket: reads `sacct -P`/`sstat -P` output (header first) and prints each measured value as the bucket it falls in,
# with the tolerances the calling case sets; anything else keeps its shape (digits become N), so units and layouts
# still compare. Settings (environment): CPU_LO/CPU_HI seconds for TotalCPU/UserCPU/cpu of the rows BIG_ROWS
# matches (a regex on JobID), RSS_LO/RSS_HI and VM_LO/VM_HI MiB for MaxRSS/AveRSS/mem and MaxVMSize/AveVMSize/vmem of
# those rows; every other row's figures are "small" (under 1.5 s, under 100 MiB) or out. The task of an extreme
# (MaxRSSTask, MaxVMSizeTask, MinCPUTask) is kept as it is where the case makes it certain. Used by cases 620, 621.
bucket() {
    awk -F'|' -v big="${BIG_ROWS:-^$}" -v cpulo="${CPU_LO:-0}" -v cpuhi="${CPU_HI:-0}" \
        -v rsslo="${RSS_LO:-0}" -v rsshi="${RSS_HI:-0}" -v vmlo="${VM_LO:-0}" -v vmhi="${VM_HI:-0}" '
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
    function within(x, lo, hi) { return x >= lo && x <= hi }
    function one(name, v, isbig) {
        if (v == "") return ""
        if (name ~ /^(TotalCPU|UserCPU|cpu)$/ && isbig && cpuhi > 0)
            return within(secs(v), cpulo, cpuhi) ? "cpu-ok" : "cpu-out:" v
        if (name ~ /^(TotalCPU|UserCPU|SystemCPU|cpu|MinCPU|AveCPU)$/)
            return secs(v) < 1.5 ? "cpu-small" : "cpu-big:" v
        if (name ~ /^(MaxRSS|AveRSS|mem)$/ && isbig && rsshi > 0)
            return within(mib(v), rsslo, rsshi) ? "rss-ok" : "rss-out:" v
        if (name ~ /^(MaxVMSize|AveVMSize|vmem)$/ && isbig && vmhi > 0)
            return within(mib(v), vmlo, vmhi) ? "vm-ok" : "vm-out:" v
        if (name ~ /^(MaxRSS|AveRSS|mem|MaxVMSize|AveVMSize|vmem)$/)
            return mib(v) < 100 ? "small" : "big:" v
        if (name ~ /Disk(Read|Write)$|^fs\/disk$/) return "disk"
        if (name == "AveCPUFreq") return "freq"
        if (name ~ /^(MaxRSSTask|MaxVMSizeTask|MinCPUTask)$/) return v
        return shape(v)
    }
    function tres(name, v, isbig,   parts, n, i, kv, out) {
        n = split(v, parts, ",")
        out = ""
        for (i = 1; i <= n; i++) {
            split(parts[i], kv, "=")
            out = out (i > 1 ? "," : "") kv[1] "=" (name ~ /(Node|Task)$/ ? shape(kv[2]) : one(kv[1], kv[2], isbig))
        }
        return out
    }
    NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; print; next }
    {
        isbig = ($1 ~ big)
        line = ""
        for (i = 1; i <= NF; i++) {
            v = (i == 1) ? shape($i) : (h[i] ~ /^TRES/ ? tres(h[i], $i, isbig) : one(h[i], $i, isbig))
            line = line (i > 1 ? "|" : "") v
        }
        print line
    }'
}

//! The built-in rules applied before job ids: paths, times, durations, PIDs, ports, priorities and the node name.
//! Each rule is a small function so the tests can pin it down alone; `apply_all` fixes their order (paths first,
//! since a path may contain anything; times before durations, since a timestamp contains `14:58:05`).

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::Context;

// Only ever given the literal patterns below: each compiles, or every normalisation test fails at once.
#[allow(clippy::expect_used)]
fn re(p: &str) -> Regex {
    Regex::new(p).expect("static regex")
}

static ISO_TIME: LazyLock<Regex> = LazyLock::new(|| re(r"\b\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d\b"));
static CTIME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d \d{4}\b",
    )
});
/// Seconds since the epoch between 2017 and 2049, as JSON outputs carry them.
static EPOCH: LazyLock<Regex> = LazyLock::new(|| re(r"\b(?:1[5-9]|2[0-4])\d{8}\b"));
static RUNTIME_KEY: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b(RunTime|Elapsed|TimeUsed)=(?:\d+-)?\d\d:\d\d:\d\d\b"));
/// An elapsed `M:SS` standing alone (an squeue TIME column). Time limits print whole minutes (`10:00`), so a
/// token with seconds, or with zero minutes, is a run time.
static ELAPSED_TOKEN: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)(^|[ \t|,])(0:\d\d|[1-9]:[0-5][1-9]|[1-9]:[1-5]0)($|[ \t|,])"));
static PID_KEY: LazyLock<Regex> = LazyLock::new(|| re(r"\b([A-Z_]*_PID)=\d+\b"));
static JSON_PID: LazyLock<Regex> = LazyLock::new(|| re(r#""(alloc_sid|pid)": \d+"#));
static SID: LazyLock<Regex> = LazyLock::new(|| re(r"\bSid=([^:\s]+):\d+\b"));
static PORT_KEY: LazyLock<Regex> = LazyLock::new(|| re(r"\b([A-Z_]*_PORTS?)=\d+(?:-\d+)?\b"));
static PRIORITY: LazyLock<Regex> = LazyLock::new(|| re(r"\bPriority=\d+\b"));
static JSON_PRIORITY: LazyLock<Regex> = LazyLock::new(|| re(r#""priority": \d+"#));
/// Load and free memory of the machine, as scontrol and sinfo show them.
static MACHINE_LOAD: LazyLock<Regex> = LazyLock::new(|| re(r"\b(CPULoad|FreeMem)=[\d.]+\b"));
static SCHEDULER: LazyLock<Regex> = LazyLock::new(|| re(r"\bScheduler=(?:Main|Backfill)\b"));

/// All rules in order.
pub fn apply_all(text: &str, ctx: &Context) -> String {
    let s = paths(text, ctx);
    let s = times(&s);
    let s = durations(&s);
    let s = pids(&s);
    let s = ports(&s, ctx);
    let s = subnet(&s, ctx.ctld_addr.as_deref());
    let s = priorities(&s);
    host(&s, &ctx.host)
}

/// Run-specific directories become the names the reference captures use. Longest first, so a work dir inside the
/// run dir is not half-replaced.
pub fn paths(text: &str, ctx: &Context) -> String {
    let mut pairs = [
        (ctx.work_dir.as_str(), "$SUBMIT_DIR"),
        (ctx.case_tmp.as_str(), "$CASE_TMP"),
        (ctx.case_dir.as_str(), "$CASE_DIR"),
        (ctx.run_dir.as_str(), "$RUNDIR"),
    ];
    pairs.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    let mut s = text.to_string();
    for (path, name) in pairs {
        // A relative or root path would swallow unrelated text.
        if path.len() > 1 && path.starts_with('/') {
            s = s.replace(path, name);
        }
    }
    s
}

/// Wall-clock times: ISO (`2026-11-30T14:58:29`), ctime (`Mon Nov 30 14:58:05 2026`) and epoch seconds.
pub fn times(text: &str) -> String {
    let s = ISO_TIME.replace_all(text, "{TIME}");
    let s = CTIME.replace_all(&s, "{TIME}");
    EPOCH.replace_all(&s, "{EPOCH}").into_owned()
}

/// Elapsed times; `Scheduler=Main|Backfill` too, since which scheduler started a job is a matter of timing; and
/// the machine's load and free memory, which change from one second to the next.
pub fn durations(text: &str) -> String {
    let s = RUNTIME_KEY.replace_all(text, "$1={DUR}");
    // Adjacent tokens share their separating blank, so one pass can miss every second one.
    let s = ELAPSED_TOKEN.replace_all(&s, "$1{DUR}$3");
    let s = ELAPSED_TOKEN.replace_all(&s, "$1{DUR}$3");
    let s = MACHINE_LOAD.replace_all(&s, "$1={LOAD}");
    SCHEDULER.replace_all(&s, "Scheduler={SCHED}").into_owned()
}

/// Process ids: `SLURM_TASK_PID=`, `AllocNode:Sid=host:PID`, JSON `alloc_sid`.
pub fn pids(text: &str) -> String {
    let s = PID_KEY.replace_all(text, "$1={PID}");
    let s = SID.replace_all(&s, "Sid=$1:{PID}");
    JSON_PID.replace_all(&s, "\"$1\": {PID}").into_owned()
}

/// Ephemeral ports by key (`SLURM_SRUN_COMM_PORT=`), and the target's daemon ports wherever they stand alone
/// (`SLURM_WORKING_CLUSTER=refcluster:127.0.0.1:6817:9728:109`).
pub fn ports(text: &str, ctx: &Context) -> String {
    let mut s = PORT_KEY.replace_all(text, "$1={PORT}").into_owned();
    for (port, name) in [
        (&ctx.ctld_port, "{CTLD_PORT}"),
        (&ctx.slurmd_port, "{SLURMD_PORT}"),
    ] {
        if let Some(p) = port.as_deref().filter(|p| !p.is_empty()) {
            s = replace_standalone(&s, p, name);
        }
    }
    s
}

/// Addresses on the controller's /24 (`10.213.123.12` -> `{NET}.12`), unless it is the loopback one: each
/// multi-node target has a subnet of its own, the same host numbers on it.
pub fn subnet(text: &str, ctld_addr: Option<&str>) -> String {
    let Some(addr) = ctld_addr.and_then(|a| a.parse::<std::net::Ipv4Addr>().ok()) else {
        return text.to_string();
    };
    if addr.is_loopback() {
        return text.to_string();
    }
    let [a, b, c, _] = addr.octets();
    match Regex::new(&format!(r"\b{a}\.{b}\.{c}\.(\d{{1,3}})\b")) {
        Ok(net) => net.replace_all(text, "{NET}.$1").into_owned(),
        Err(_) => text.to_string(),
    }
}

/// Priorities depend on submit order and age.
pub fn priorities(text: &str) -> String {
    let s = PRIORITY.replace_all(text, "Priority={PRIO}");
    JSON_PRIORITY
        .replace_all(&s, "\"priority\": {PRIO}")
        .into_owned()
}

/// The node's name, as a whole word (`slurmstepd-vm:` counts: a dash separates).
pub fn host(text: &str, host: &str) -> String {
    if host.is_empty() {
        return text.to_string();
    }
    let word = Regex::new(&format!(
        r"(^|[^A-Za-z0-9_-]){}($|[^A-Za-z0-9_-])",
        regex::escape(host)
    ));
    match word {
        // Twice: `vm,vm` shares the comma between two matches.
        Ok(w) => {
            let rep = |c: &Captures| format!("{}{{HOST}}{}", &c[1], &c[2]);
            let s = w.replace_all(text, rep);
            w.replace_all(&s, rep).into_owned()
        }
        Err(_) => text.to_string(),
    }
}

/// Replaces `needle` (digits) where it is not part of a longer number or word.
fn replace_standalone(text: &str, needle: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut last = 0;
    for (i, _) in text.match_indices(needle) {
        let end = i + needle.len();
        let before_ok = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        let after_ok = end == b.len() || !b[end].is_ascii_alphanumeric();
        if before_ok && after_ok && i >= last {
            out.push_str(&text[last..i]);
            out.push_str(with);
            last = end;
        }
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn iso_ctime_and_epoch_times() {
        assert_eq!(
            times("SubmitTime=2026-11-30T14:57:35 End=Unknown"),
            "SubmitTime={TIME} End=Unknown"
        );
        assert_eq!(
            times("start at 10193-01-14T20:51:31 using"),
            "start at {TIME} using"
        );
        assert_eq!(times("Mon Nov 30 14:58:05 2026\nJOBID"), "{TIME}\nJOBID");
        assert_eq!(times("Tue Dec  1 04:08:05 2026"), "{TIME}");
        assert_eq!(
            times("\"submit_time\": 1796050655,"),
            "\"submit_time\": {EPOCH},"
        );
        assert_eq!(
            times("\"memory\": 23593, id 4294901759"),
            "\"memory\": 23593, id 4294901759"
        );
    }

    #[test]
    fn run_times_but_not_limits() {
        assert_eq!(
            durations("RunTime=00:00:01 TimeLimit=00:05:00"),
            "RunTime={DUR} TimeLimit=00:05:00"
        );
        assert_eq!(durations("RunTime=1-02:03:04"), "RunTime={DUR}");
        assert_eq!(
            durations("  root  R       0:01      1 vm"),
            "  root  R       {DUR}      1 vm"
        );
        assert_eq!(durations("RUNNING 0:02 10:00 1"), "RUNNING {DUR} 10:00 1");
        assert_eq!(durations("0:00 0:00\n"), "{DUR} {DUR}\n");
        assert_eq!(durations("R 1:05 5:00"), "R {DUR} 5:00");
        assert_eq!(durations("at 14:58:05"), "at 14:58:05");
        assert_eq!(durations("Scheduler=Backfill"), "Scheduler={SCHED}");
        assert_eq!(durations("many|0:00|x"), "many|{DUR}|x");
        assert_eq!(
            durations("CPULoad=6.29 FreeMem=17310 RealMemory=9"),
            "CPULoad={LOAD} FreeMem={LOAD} RealMemory=9"
        );
    }

    #[test]
    fn pids_by_key() {
        assert_eq!(
            pids("SLURM_TASK_PID=22343\nSLURM_PRIO_PROCESS=0"),
            "SLURM_TASK_PID={PID}\nSLURM_PRIO_PROCESS=0"
        );
        assert_eq!(pids("AllocNode:Sid=vm:2653"), "AllocNode:Sid=vm:{PID}");
        assert_eq!(pids("\"alloc_sid\": 2653,"), "\"alloc_sid\": {PID},");
    }

    #[test]
    fn ports_by_key_and_value() {
        let ctx = Context {
            ctld_port: Some("6817".into()),
            slurmd_port: Some("6818".into()),
            ..Context::default()
        };
        assert_eq!(
            ports(
                "SLURM_WORKING_CLUSTER=refcluster:127.0.0.1:6817:9728:109",
                &ctx
            ),
            "SLURM_WORKING_CLUSTER=refcluster:127.0.0.1:{CTLD_PORT}:9728:109"
        );
        assert_eq!(
            ports("SlurmdPort=6818 x68181", &ctx),
            "SlurmdPort={SLURMD_PORT} x68181"
        );
        assert_eq!(
            ports("SLURM_SRUN_COMM_PORT=41235", &ctx),
            "SLURM_SRUN_COMM_PORT={PORT}"
        );
    }

    #[test]
    fn priority_values() {
        assert_eq!(
            priorities("Priority=4294901759 Nice=0"),
            "Priority={PRIO} Nice=0"
        );
        assert_eq!(
            priorities("\"priority\": 4294901759,"),
            "\"priority\": {PRIO},"
        );
    }

    #[test]
    fn host_as_whole_word() {
        assert_eq!(
            host("NodeList=vm BatchHost=vm", "vm"),
            "NodeList={HOST} BatchHost={HOST}"
        );
        assert_eq!(
            host("vm,vm vmstat nvm vm-1 vm\n", "vm"),
            "{HOST},{HOST} vmstat nvm vm-1 {HOST}\n"
        );
        assert_eq!(host("x", ""), "x");
    }

    #[test]
    fn paths_longest_first() {
        let ctx = Context {
            run_dir: "/tmp/r".into(),
            work_dir: "/tmp/r/work/001".into(),
            case_dir: "/repo/cases/001".into(),
            case_tmp: String::new(),
            ..Context::default()
        };
        assert_eq!(
            paths(
                "WorkDir=/tmp/r/work/001 conf /tmp/r/slurm.conf /repo/cases/001/job.sh",
                &ctx
            ),
            "WorkDir=$SUBMIT_DIR conf $RUNDIR/slurm.conf $CASE_DIR/job.sh"
        );
    }

    #[test]
    fn controller_subnet() {
        let text = "SLURM_WORKING_CLUSTER=c:10.213.123.1:6817 NodeAddr=10.213.123.12 other=10.213.12.3 110.213.123.4";
        assert_eq!(
            subnet(text, Some("10.213.123.1")),
            "SLURM_WORKING_CLUSTER=c:{NET}.1:6817 NodeAddr={NET}.12 other=10.213.12.3 110.213.123.4"
        );
        assert_eq!(subnet(text, Some("127.0.0.1")), text);
        assert_eq!(subnet(text, Some("ctl-host")), text);
        assert_eq!(subnet(text, None), text);
    }

    #[test]
    fn all_rules_together() {
        let ctx = Context {
            host: "vm".into(),
            run_dir: "/tmp/r".into(),
            ctld_port: Some("6817".into()),
            ..Context::default()
        };
        assert_eq!(
            apply_all(
                "SLURM_CONF=/tmp/r/slurm.conf SLURMD_NODENAME=vm StartTime=2026-01-01T00:00:00",
                &ctx
            ),
            "SLURM_CONF=$RUNDIR/slurm.conf SLURMD_NODENAME={HOST} StartTime={TIME}"
        );
    }
}

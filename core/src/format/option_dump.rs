//! The option dump srun, salloc and sbatch print under `-v` (Slurm's `slurm_print_set_options`): every option
//! that was set (on the command line, in the environment or by `#SBATCH`), one line each as `NAME: VALUE` with the
//! name padded to 20 columns, in the order of Slurm 22.05's option table, the value as Slurm's getter for that
//! option renders it (flags `set`, times `HH:MM:SS`, sizes `1G`, counts as numbers).

use crate::grammar::options::{def, OptId, OptionSet};
use crate::grammar::values::time::{format_minutes, parse_time_limit, TimeLimit};

/// How Slurm's getter renders an option's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Render {
    /// As given.
    Text,
    /// A flag: `set`.
    Set,
    /// How many times the option was given (`-vvv`: 3).
    Count,
    /// A whole number (`%d` of the parsed value).
    Int,
    /// `--nodes`: `MIN` or `MIN-MAX`.
    Nodes,
    /// Minutes as `[D-]HH:MM:SS`.
    Minutes,
    /// Megabytes with the largest unit that divides them (`1024` is `1G`, `1000` stays `1000`).
    Megabytes,
    /// `--slurmd-debug`: the level's name.
    LogLevel,
    /// `--exclusive[=user|mcs]`: `exclusive`, `user` or `mcs`.
    Exclusive,
    /// `--kill-on-bad-exit[=0|1]`: the number, 1 when left out.
    KillOnBadExit,
    /// `--open-mode`: `a` or `t`.
    OpenMode,
}

/// Slurm 22.05's option table order and names (`None`: an option without a name, printed `(null)`) with how each
/// value is rendered. Options Spur does not know are left out; they are never set here.
const ORDER: &[(&str, Option<&str>, Render)] = &[
    ("accel-bind", Some("accel-bind"), Render::Text),
    ("account", Some("account"), Render::Text),
    ("acctg-freq", Some("acctg-freq"), Render::Text),
    ("array", Some("array"), Render::Text),
    ("batch", Some("batch"), Render::Text),
    ("bcast", Some("bcast"), Render::Text),
    ("bcast-exclude", Some("bcast-exclude"), Render::Text),
    ("begin", Some("begin"), Render::Text),
    ("bell", Some("bell"), Render::Set),
    ("bb", Some("bb"), Render::Text),
    ("bbf", Some("bbf"), Render::Text),
    (
        "cluster-constraint",
        Some("cluster-constraint"),
        Render::Text,
    ),
    ("chdir", Some("chdir"), Render::Text),
    ("clusters", Some("clusters"), Render::Text),
    ("comment", Some("comment"), Render::Text),
    ("compress", Some("compress"), Render::Text),
    ("container", Some("container"), Render::Text),
    ("context", Some("context"), Render::Text),
    ("contiguous", Some("contiguous"), Render::Set),
    ("constraint", Some("constraint"), Render::Text),
    ("core-spec", Some("core-spec"), Render::Int),
    ("cores-per-socket", Some("cores-per-socket"), Render::Int),
    ("cpu-bind", Some("cpu-bind"), Render::Text),
    ("cpu-freq", Some("cpu-freq"), Render::Text),
    ("cpus-per-gpu", Some("cpus-per-gpu"), Render::Int),
    ("cpus-per-task", Some("cpus-per-task"), Render::Int),
    ("deadline", Some("deadline"), Render::Text),
    ("debugger-test", Some("debugger-test"), Render::Set),
    ("delay-boot", Some("delay-boot"), Render::Text),
    ("dependency", Some("dependency"), Render::Text),
    ("disable-status", Some("disable-status"), Render::Set),
    ("distribution", Some("distribution"), Render::Text),
    ("epilog", Some("epilog"), Render::Text),
    ("error", Some("error"), Render::Text),
    ("exact", Some("exact"), Render::Set),
    ("exclude", Some("exclude"), Render::Text),
    ("exclusive", Some("exclusive"), Render::Exclusive),
    ("export", Some("export"), Render::Text),
    ("export-file", Some("export-file"), Render::Text),
    ("extra-node-info", Some("extra-node-info"), Render::Text),
    ("get-user-env", Some("get-user-env"), Render::Text),
    ("gid", Some("gid"), Render::Text),
    ("gpu-bind", Some("gpu-bind"), Render::Text),
    ("gpu-freq", Some("gpu-freq"), Render::Text),
    ("gpus", Some("gpus"), Render::Text),
    ("gpus-per-node", Some("gpus-per-node"), Render::Text),
    ("gpus-per-socket", Some("gpus-per-socket"), Render::Text),
    ("gpus-per-task", Some("gpus-per-task"), Render::Text),
    ("gres", Some("gres"), Render::Text),
    ("gres-flags", Some("gres-flags"), Render::Text),
    ("het-group", Some("het-group"), Render::Text),
    ("hint", Some("hint"), Render::Text),
    ("hold", Some("hold"), Render::Set),
    ("ignore-pbs", Some("ignore-pbs"), Render::Set),
    ("immediate", Some("immediate"), Render::Int),
    ("input", Some("input"), Render::Text),
    ("interactive", Some("interactive"), Render::Set),
    ("jobid", Some("jobid"), Render::Int),
    ("job-name", Some("job-name"), Render::Text),
    ("kill-command", Some("kill-command"), Render::Text),
    (
        "kill-on-bad-exit",
        Some("kill-on-bad-exit"),
        Render::KillOnBadExit,
    ),
    (
        "kill-on-invalid-dep",
        Some("kill-on-invalid-dep"),
        Render::Text,
    ),
    ("label", Some("label"), Render::Set),
    ("licenses", Some("licenses"), Render::Text),
    ("mail-type", Some("mail-type"), Render::Text),
    ("mail-user", Some("mail-user"), Render::Text),
    ("threads", Some("threads"), Render::Int),
    ("mcs-label", Some("mcs-label"), Render::Text),
    ("mem", Some("mem"), Render::Megabytes),
    ("mem-bind", Some("mem-bind"), Render::Text),
    ("mem-per-cpu", Some("mem-per-cpu"), Render::Megabytes),
    ("mem-per-gpu", Some("mem-per-gpu"), Render::Megabytes),
    ("mincpus", Some("mincpus"), Render::Int),
    ("mpi", Some("mpi"), Render::Text),
    ("msg-timeout", Some("msg-timeout"), Render::Int),
    ("multi-prog", Some("multi-prog"), Render::Set),
    ("network", Some("network"), Render::Text),
    ("nice", Some("nice"), Render::Int),
    ("no-allocate", Some("no-allocate"), Render::Set),
    ("no-bell", Some("no-bell"), Render::Text),
    ("no-kill", Some("no-kill"), Render::Set),
    ("no-shell", Some("no-shell"), Render::Set),
    ("no-requeue", Some("no-requeue"), Render::Text),
    ("nodefile", Some("nodefile"), Render::Text),
    ("nodelist", Some("nodelist"), Render::Text),
    ("nodes", Some("nodes"), Render::Nodes),
    ("ntasks", Some("ntasks"), Render::Int),
    ("ntasks-per-core", Some("ntasks-per-core"), Render::Int),
    ("ntasks-per-gpu", Some("ntasks-per-gpu"), Render::Int),
    ("ntasks-per-node", Some("ntasks-per-node"), Render::Int),
    ("ntasks-per-socket", Some("ntasks-per-socket"), Render::Int),
    ("ntasks-per-tres", Some("ntasks-per-tres"), Render::Int),
    ("open-mode", Some("open-mode"), Render::OpenMode),
    ("output", Some("output"), Render::Text),
    ("overcommit", Some("overcommit"), Render::Set),
    ("overlap", Some("overlap"), Render::Set),
    ("oversubscribe", Some("oversubscribe"), Render::Exclusive),
    ("parsable", Some("parsable"), Render::Set),
    ("partition", Some("partition"), Render::Text),
    ("power", Some("power"), Render::Text),
    ("prefer", Some("prefer"), Render::Text),
    ("preserve-env", Some("preserve-env"), Render::Set),
    ("priority", Some("priority"), Render::Text),
    ("profile", Some("profile"), Render::Text),
    ("prolog", Some("prolog"), Render::Text),
    ("propagate", Some("propagate"), Render::Text),
    ("pty", Some("pty"), Render::Set),
    ("qos", Some("qos"), Render::Text),
    ("quiet", Some("quiet"), Render::Count),
    ("quit-on-interrupt", Some("quit-on-interrupt"), Render::Set),
    ("reboot", Some("reboot"), Render::Set),
    ("relative", Some("relative"), Render::Int),
    ("requeue", Some("requeue"), Render::Text),
    ("reservation", Some("reservation"), Render::Text),
    ("resv-ports", Some("resv-ports"), Render::Text),
    ("send-libs", Some("send-libs"), Render::Text),
    ("signal", Some("signal"), Render::Text),
    ("slurmd-debug", Some("slurmd-debug"), Render::LogLevel),
    ("sockets-per-node", Some("sockets-per-node"), Render::Int),
    ("spread-job", Some("spread-job"), Render::Set),
    ("switch-req", None, Render::Text),
    ("switch-wait", None, Render::Text),
    ("switches", Some("switches"), Render::Text),
    ("task-epilog", Some("task-epilog"), Render::Text),
    ("task-prolog", Some("task-prolog"), Render::Text),
    ("test-only", Some("test-only"), Render::Set),
    ("thread-spec", Some("thread-spec"), Render::Int),
    ("threads-per-core", Some("threads-per-core"), Render::Int),
    ("time", Some("time"), Render::Minutes),
    ("time-min", Some("time-min"), Render::Minutes),
    ("tmp", Some("tmp"), Render::Megabytes),
    ("uid", Some("uid"), Render::Text),
    ("unbuffered", Some("unbuffered"), Render::Set),
    ("use-min-nodes", Some("use-min-nodes"), Render::Set),
    ("verbose", Some("verbose"), Render::Count),
    ("umask", None, Render::Text),
    ("wait", Some("wait"), Render::Text),
    ("wait-all-nodes", Some("wait-all-nodes"), Render::Text),
    ("wckey", Some("wckey"), Render::Text),
    ("whole", Some("whole"), Render::Set),
    ("wrap", Some("wrap"), Render::Text),
    ("x11", Some("x11"), Render::Text),
];

/// The dump's lines, without the program's `srun: ` prefix.
pub fn option_dump(set: &OptionSet) -> Vec<String> {
    let rule = "-------------------- --------------------".to_string();
    let mut lines = vec!["defined options".to_string(), rule.clone()];
    for (long, name, render) in ORDER {
        for (id, entry) in set.iter().filter(|(id, _)| def(*id).long == *long) {
            let value = render_value(id, *render, entry.value.as_deref(), entry.count);
            lines.push(format!(
                "{:<20}: {}",
                name.unwrap_or("(null)"),
                value.as_deref().unwrap_or("(null)")
            ));
        }
    }
    lines.push(rule);
    lines.push("end of defined options".to_string());
    lines
}

fn render_value(id: OptId, render: Render, value: Option<&str>, count: u32) -> Option<String> {
    let int = |v: &str| {
        v.trim()
            .parse::<i64>()
            .map_or_else(|_| v.to_string(), |n| n.to_string())
    };
    Some(match render {
        Render::Text => value.map_or_else(|| "set".to_string(), str::to_string),
        Render::Set => "set".to_string(),
        Render::Count => count.to_string(),
        Render::Int => int(value?),
        Render::Nodes => {
            let v = value?;
            match v.split_once('-') {
                Some((min, max)) if int(min) != int(max) => format!("{}-{}", int(min), int(max)),
                Some((min, _)) => int(min),
                None => int(v),
            }
        }
        Render::Minutes => match parse_time_limit(value?) {
            Ok(TimeLimit::Minutes(m)) => format_minutes(m),
            Ok(TimeLimit::Unlimited) => "UNLIMITED".to_string(),
            Err(_) => value?.to_string(),
        },
        Render::Megabytes => {
            let v = value?;
            match crate::grammar::values::size::parse_megabytes(v) {
                Some(mb) => megabytes_text(mb),
                None => v.to_string(),
            }
        }
        Render::LogLevel => log_level_name(value?),
        Render::Exclusive => match (id, value) {
            (OptId::Oversubscribe, _) => "oversubscribe".to_string(),
            (_, Some("user")) => "user".to_string(),
            (_, Some("mcs")) => "mcs".to_string(),
            (_, Some("oversubscribe")) => "oversubscribe".to_string(),
            _ => "exclusive".to_string(),
        },
        Render::KillOnBadExit => value.map_or_else(|| "1".to_string(), int),
        Render::OpenMode => match value?.chars().next() {
            Some('a' | 'A') => "a".to_string(),
            Some('t' | 'T') => "t".to_string(),
            _ => return None,
        },
    })
}

/// Slurm's `mbytes_to_str`: the largest unit of M, G, T, P that divides the amount, `M` left out.
fn megabytes_text(mut mb: u64) -> String {
    let units = ['M', 'G', 'T', 'P'];
    let mut unit = 0;
    while unit + 1 < units.len() && mb != 0 && mb.is_multiple_of(1024) {
        mb /= 1024;
        unit += 1;
    }
    match unit {
        0 => mb.to_string(),
        _ => format!("{mb}{}", units[unit]),
    }
}

/// Slurm's log level names (`log_num2string`), from a name or a number as `--slurmd-debug` takes them.
pub fn log_level_name(value: &str) -> String {
    const NAMES: [&str; 10] = [
        "quiet", "fatal", "error", "info", "verbose", "debug", "debug2", "debug3", "debug4",
        "debug5",
    ];
    let number = value.trim().parse::<usize>().ok();
    match number {
        Some(n) => NAMES.get(n).map_or("unknown", |s| s).to_string(),
        None => value.trim().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::options::Source;

    fn set(entries: &[(OptId, Option<&str>)]) -> OptionSet {
        let mut set = OptionSet::new();
        for (index, (id, value)) in entries.iter().enumerate() {
            set.set(
                *id,
                value.map(str::to_string),
                Source::CommandLine { index },
            );
        }
        set
    }

    #[test]
    fn options_come_in_slurms_table_order_rendered_as_its_getters_do() {
        // srun -v -N1 -n2 -t1 --job-name=foo -o /dev/null on Slurm 22.05.
        let set = set(&[
            (OptId::Verbose, None),
            (OptId::Nodes, Some("1")),
            (OptId::Ntasks, Some("2")),
            (OptId::Time, Some("1")),
            (OptId::JobName, Some("foo")),
            (OptId::Output, Some("/dev/null")),
        ]);
        assert_eq!(
            option_dump(&set),
            [
                "defined options",
                "-------------------- --------------------",
                "job-name            : foo",
                "nodes               : 1",
                "ntasks              : 2",
                "output              : /dev/null",
                "time                : 00:01:00",
                "verbose             : 1",
                "-------------------- --------------------",
                "end of defined options",
            ]
        );
    }

    #[test]
    fn counts_flags_sizes_and_levels() {
        let mut s = set(&[
            (OptId::Label, None),
            (OptId::Mem, Some("2048")),
            (OptId::SlurmdDebug, Some("4")),
            (OptId::Nodes, Some("1-2")),
            (OptId::Verbose, None),
        ]);
        s.set_count(OptId::Verbose, 4);
        let dump = option_dump(&s);
        assert!(dump.contains(&"label               : set".to_string()));
        assert!(dump.contains(&"mem                 : 2G".to_string()));
        assert!(dump.contains(&"slurmd-debug        : verbose".to_string()));
        assert!(dump.contains(&"nodes               : 1-2".to_string()));
        assert!(dump.contains(&"verbose             : 4".to_string()));
        assert_eq!(megabytes_text(1000), "1000");
        assert_eq!(megabytes_text(1024 * 1024), "1T");
    }
}

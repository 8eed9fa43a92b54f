use super::*;
use crate::grammar::options::set::Source;

const CL: Source = Source::CommandLine { index: 0 };

fn resolved(cmd: Command, pairs: &[(OptId, Option<&str>)]) -> Result<Resolved, OptError> {
    let mut set = OptionSet::new();
    for (id, v) in pairs {
        set.set(*id, v.map(String::from), CL);
    }
    resolve(&ErrCtx::new(cmd), &set, &ResolveConfig::default())
}

#[test]
fn common_options_get_types() {
    let r = resolved(
        Command::Sbatch,
        &[
            (OptId::Time, Some("1-00:00:00")),
            (OptId::Nodes, Some("2-4")),
            (OptId::Ntasks, Some("8")),
            (OptId::Mem, Some("2G")),
            (OptId::Output, Some("NONE")),
            (OptId::Signal, Some("B:USR1@30")),
            (OptId::Array, Some("0-9%2")),
            (OptId::Dependency, Some("afterok:12")),
            (OptId::Exclusive, Some("user")),
            (OptId::Nice, None),
            (OptId::Hold, None),
        ],
    )
    .unwrap();
    assert_eq!(r.time_limit, Some(TimeLimit::Minutes(1440)));
    assert_eq!(r.nodes.map(|n| (n.min, n.max)), Some((2, 4)));
    assert_eq!(r.ntasks, Some(8));
    assert_eq!(r.mem_per_node, Some(Megabytes(2048)));
    assert_eq!(r.output.as_deref(), Some("/dev/null"));
    assert_eq!(
        r.signal.map(|s| (s.signal, s.time, s.batch_only)),
        Some((10, 30, true))
    );
    assert_eq!(
        r.array
            .as_ref()
            .map(|a| (a.task_ids().count(), a.max_running)),
        Some((10, Some(2)))
    );
    assert!(r.dependency.is_some());
    assert_eq!(r.sharing, Some(Sharing::ExclusiveUser));
    assert_eq!(r.nice, Some(100));
    assert!(r.hold);
}

#[test]
fn controller_side_checks_are_worded_per_command() {
    let e = resolved(Command::Sbatch, &[(OptId::Array, Some("x"))]).unwrap_err();
    assert_eq!(
        e.lines,
        vec!["sbatch: error: Batch job submission failed: Invalid job array specification"]
    );
    assert_eq!(e.exit_code, 1);
    let e = resolved(Command::Salloc, &[(OptId::Dependency, Some("bogus"))]).unwrap_err();
    assert_eq!(
        e.lines,
        vec!["salloc: error: Job submit/allocate failed: Job dependency problem"]
    );
    let e = resolved(Command::Srun, &[(OptId::Dependency, Some("bogus"))]).unwrap_err();
    assert_eq!(
        e.lines,
        vec!["srun: error: Unable to allocate resources: Job dependency problem"]
    );
}

#[test]
fn switches_from_option_or_environment() {
    let r = resolved(Command::Sbatch, &[(OptId::Switches, Some("4@2:00"))]).unwrap();
    assert_eq!(
        r.switches,
        Some(Switches {
            count: 4,
            wait_secs: Some(120)
        })
    );
    let mut set = OptionSet::new();
    set.set(
        OptId::SwitchReq,
        Some("3".into()),
        Source::Env {
            var: "SBATCH_REQ_SWITCH",
        },
    );
    set.set(
        OptId::SwitchWait,
        Some("5".into()),
        Source::Env {
            var: "SBATCH_WAIT4SWITCH",
        },
    );
    let r = resolve(
        &ErrCtx::new(Command::Sbatch),
        &set,
        &ResolveConfig::default(),
    )
    .unwrap();
    assert_eq!(
        r.switches,
        Some(Switches {
            count: 3,
            wait_secs: Some(300)
        })
    );
}

#[test]
fn small_conversions() {
    let r = resolved(
        Command::Salloc,
        &[
            (OptId::KillCommand, None),
            (OptId::NoKill, Some("off")),
            (OptId::DelayBoot, Some("-1")),
        ],
    )
    .unwrap();
    assert_eq!(r.kill_command_signal, Some(15));
    assert_eq!(r.no_kill, Some(false));
    assert_eq!(r.delay_boot_secs, Some(INFINITE));
    let r = resolved(Command::Salloc, &[(OptId::KillCommand, Some("USR1"))]).unwrap();
    assert_eq!(r.kill_command_signal, Some(10));
    let mut set = OptionSet::new();
    set.set(
        OptId::Umask,
        Some("077".into()),
        Source::Wrapper { line: 2 },
    );
    let r = resolve(
        &ErrCtx::new(Command::Sbatch),
        &set,
        &ResolveConfig::default(),
    )
    .unwrap();
    assert_eq!(r.umask, Some(0o77));
    assert_eq!(pbs_umask("9"), Some(9));
    assert_eq!(pbs_umask("0x1f"), Some(31));
}

#[test]
fn begin_deadline_and_gres_with_context() {
    let now = LocalNow {
        epoch_secs: 1_700_000_000,
        utc_offset_secs: 0,
    };
    let config = ResolveConfig {
        gres_types: vec!["gpu".into()],
        now: Some(now),
        ..ResolveConfig::default()
    };
    let mut set = OptionSet::new();
    set.set(OptId::Begin, Some("now+1hour".into()), CL);
    set.set(OptId::Deadline, Some("2000-01-01".into()), CL);
    set.set(OptId::Gres, Some("gpu:a100:2".into()), CL);
    let r = resolve(&ErrCtx::new(Command::Sbatch), &set, &config).unwrap();
    assert_eq!(r.begin_epoch, Some(1_700_003_600));
    assert_eq!(r.deadline_epoch, Some(946_684_800));
    assert_eq!(r.gres_requests.map(|g| g.len()), Some(1));
    set.set(OptId::Gres, Some("fpga:1".into()), CL);
    let e = resolve(&ErrCtx::new(Command::Sbatch), &set, &config).unwrap_err();
    assert_eq!(
        e.lines,
        vec!["sbatch: error: Invalid generic resource (gres) specification"]
    );
    assert_eq!(e.exit_code, 1);
}

#[test]
fn memory_options_are_mutually_exclusive_unless_from_the_environment() {
    let e = resolved(
        Command::Sbatch,
        &[(OptId::Mem, Some("1G")), (OptId::MemPerCpu, Some("1G"))],
    )
    .unwrap_err();
    assert_eq!(
        e.lines,
        vec!["sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive."]
    );
    assert_eq!(e.exit_code, 1);
    // A script directive counts like the command line.
    let mut set = OptionSet::new();
    set.set(OptId::Mem, Some("1G".into()), CL);
    set.set(
        OptId::MemPerGpu,
        Some("2G".into()),
        Source::Directive { line: 2 },
    );
    assert!(resolve(&ErrCtx::new(Command::Srun), &set, &ResolveConfig::default()).is_err());
    // One from the environment gives way to an explicit one.
    let mut set = OptionSet::new();
    set.set(OptId::Mem, Some("1G".into()), CL);
    set.set(
        OptId::MemPerCpu,
        Some("2G".into()),
        Source::Env {
            var: "SBATCH_MEM_PER_CPU",
        },
    );
    let r = resolve(
        &ErrCtx::new(Command::Sbatch),
        &set,
        &ResolveConfig::default(),
    )
    .unwrap();
    assert_eq!(
        (r.mem_per_node, r.mem_per_cpu),
        (Some(Megabytes(1024)), None)
    );
}

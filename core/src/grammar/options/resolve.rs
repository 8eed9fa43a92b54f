//! Stage 2: turn an [`OptionSet`] of strings into typed values for the options Spur acts on, with the value
//! grammars of [`crate::grammar::values`] and Slurm's error texts.
//!
//! Most values were already checked while reading (stage 1), so this rarely fails; the exceptions are the checks
//! Slurm leaves to the controller (job arrays, dependencies), reported the way each command words a refused
//! submission. Options not listed here stay available as strings in the [`OptionSet`].

use crate::grammar::values::array::{parse_array_spec, ArraySpec, DEFAULT_MAX_ARRAY_SIZE};
use crate::grammar::values::begin::{parse_begin, parse_time, LocalNow};
use crate::grammar::values::dependency::{parse_dependency, DependencySpec};
use crate::grammar::values::distribution::{parse_distribution, Distribution};
use crate::grammar::values::gres::{parse_gres, GresError, GresRequest};
use crate::grammar::values::mail::{parse_mail_type, MailType};
use crate::grammar::values::nodes::{parse_node_count, NodeCount};
use crate::grammar::values::signal::{parse_signal_spec, sig_name2num, SignalSpec};
use crate::grammar::values::size::{parse_size, Megabytes, SizeOption};
use crate::grammar::values::time::{parse_job_time_limit, parse_time_secs, TimeLimit};
use crate::grammar::values::INFINITE;

use super::error::{ErrCtx, ErrorKind, ExitClass, OptError};
use super::set::OptionSet;
use super::table::{Command, OptId};
use super::validate::{
    self, parse_cpu_freq, parse_mem_bind, parse_umask, strtol, CpuFreq, MemBind,
};

/// What resolution needs beyond the options: cluster configuration and the clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolveConfig {
    /// `MaxArraySize` from slurm.conf.
    pub max_array_size: u32,
    /// `GresTypes` from slurm.conf (`gpu` is implied by the `gres/gpu` plugin); `--gres` names must be among them.
    pub gres_types: Vec<String>,
    /// The clock `--begin` and `--deadline` are resolved against; without it they stay unresolved strings.
    pub now: Option<LocalNow>,
}

impl Default for ResolveConfig {
    fn default() -> Self {
        ResolveConfig {
            max_array_size: DEFAULT_MAX_ARRAY_SIZE,
            gres_types: Vec::new(),
            now: None,
        }
    }
}

/// How the job may share nodes (`--exclusive[=user|mcs]`, `--oversubscribe`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharing {
    Exclusive,
    ExclusiveUser,
    ExclusiveMcs,
    Oversubscribe,
}

/// `--priority`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    /// `top`: ahead of the user's other jobs.
    Top,
    Value(u32),
}

/// `--open-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    Append,
    Truncate,
}

/// `--switches=count[@time]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switches {
    pub count: u32,
    /// How long to wait for that many switches, in seconds, if given.
    pub wait_secs: Option<u32>,
}

/// `--get-user-env[=timeout][mode]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GetUserEnv {
    pub timeout_secs: Option<u32>,
    /// `S` (short) or `L` (login), upper case.
    pub mode: Option<char>,
}

/// Typed values of the common options of one job component. `None` (or `false`) means "not given".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Resolved {
    pub job_name: Option<String>,
    pub partition: Option<String>,
    pub account: Option<String>,
    pub qos: Option<String>,
    pub reservation: Option<String>,
    pub comment: Option<String>,
    pub wckey: Option<String>,
    pub constraint: Option<String>,
    pub licenses: Option<String>,
    pub mail_user: Option<String>,
    pub nodelist: Option<String>,
    pub exclude: Option<String>,
    pub chdir: Option<String>,
    pub export: Option<String>,
    pub gres: Option<String>,
    pub gpus: Option<String>,
    /// `--begin` and `--deadline` as given.
    pub begin: Option<String>,
    pub deadline: Option<String>,
    /// The same, in seconds since the epoch, when [`ResolveConfig::now`] was given.
    pub begin_epoch: Option<i64>,
    pub deadline_epoch: Option<i64>,
    /// `--gres`, checked against [`ResolveConfig::gres_types`].
    pub gres_requests: Option<Vec<GresRequest>>,
    /// File name patterns; `none` is `/dev/null`.
    pub output: Option<String>,
    pub error: Option<String>,
    pub input: Option<String>,
    pub open_mode: Option<OpenMode>,
    pub time_limit: Option<TimeLimit>,
    pub time_min: Option<TimeLimit>,
    pub nodes: Option<NodeCount>,
    pub ntasks: Option<u32>,
    pub cpus_per_task: Option<u32>,
    pub ntasks_per_node: Option<u32>,
    pub mincpus: Option<u32>,
    pub mem_per_node: Option<Megabytes>,
    pub mem_per_cpu: Option<Megabytes>,
    pub mem_per_gpu: Option<Megabytes>,
    pub tmp: Option<Megabytes>,
    pub distribution: Option<Distribution>,
    pub mail_type: Option<MailType>,
    pub signal: Option<SignalSpec>,
    pub kill_command_signal: Option<i32>,
    pub dependency: Option<DependencySpec>,
    pub array: Option<ArraySpec>,
    pub nice: Option<i32>,
    pub priority: Option<Priority>,
    pub sharing: Option<Sharing>,
    pub requeue: Option<bool>,
    pub no_kill: Option<bool>,
    pub kill_on_invalid_dep: Option<bool>,
    pub wait_all_nodes: Option<bool>,
    pub core_spec: Option<u32>,
    pub thread_spec: Option<u32>,
    pub cpu_freq: Option<CpuFreq>,
    pub mem_bind: Option<MemBind>,
    /// Seconds; `INFINITE` for no limit (`-1`).
    pub delay_boot_secs: Option<u32>,
    pub switches: Option<Switches>,
    pub get_user_env: Option<GetUserEnv>,
    pub umask: Option<u32>,
    pub hold: bool,
    pub overcommit: bool,
    pub contiguous: bool,
    pub spread_job: bool,
    pub use_min_nodes: bool,
    pub reboot: bool,
    pub test_only: bool,
    pub parsable: bool,
    pub wait: bool,
    pub verbosity: u32,
}

/// Resolves one component's options for `ctx.cmd`.
pub fn resolve(
    ctx: &ErrCtx,
    set: &OptionSet,
    config: &ResolveConfig,
) -> Result<Resolved, OptError> {
    let s = |id| set.value(id).map(str::to_string);
    let flag = |id| set.is_set(id);
    let mut r = Resolved {
        job_name: s(OptId::JobName),
        partition: s(OptId::Partition),
        account: s(OptId::Account),
        qos: s(OptId::Qos),
        reservation: s(OptId::Reservation),
        comment: s(OptId::Comment),
        wckey: s(OptId::Wckey),
        constraint: s(OptId::Constraint),
        licenses: s(OptId::Licenses),
        mail_user: s(OptId::MailUser),
        nodelist: s(OptId::Nodelist),
        exclude: s(OptId::Exclude),
        chdir: s(OptId::Chdir),
        export: s(OptId::Export),
        gres: s(OptId::Gres),
        gpus: s(OptId::Gpus),
        begin: s(OptId::Begin),
        deadline: s(OptId::Deadline),
        output: set.value(OptId::Output).map(io_path),
        error: set.value(OptId::Error).map(io_path),
        input: set.value(OptId::Input).map(io_path),
        hold: flag(OptId::Hold),
        overcommit: flag(OptId::Overcommit),
        contiguous: flag(OptId::Contiguous),
        spread_job: flag(OptId::SpreadJob),
        use_min_nodes: flag(OptId::UseMinNodes),
        reboot: flag(OptId::Reboot),
        test_only: flag(OptId::TestOnly),
        parsable: flag(OptId::Parsable),
        wait: flag(OptId::Wait),
        verbosity: set.verbosity(),
        ..Resolved::default()
    };
    let invalid = |id, msg: String| {
        ctx.error(
            ErrorKind::InvalidValue(id),
            ExitClass::Minus1,
            &[msg.as_str()],
        )
    };
    if let Some(v) = set.value(OptId::Time) {
        r.time_limit =
            Some(parse_job_time_limit(v).map_err(|_| invalid(OptId::Time, spec("time")))?);
    }
    if let Some(v) = set.value(OptId::TimeMin) {
        r.time_min =
            Some(parse_job_time_limit(v).map_err(|_| invalid(OptId::TimeMin, spec("time-min")))?);
    }
    if let Some(v) = set.value(OptId::Nodes) {
        r.nodes = Some(parse_node_count(v).map_err(|e| invalid(OptId::Nodes, e.to_string()))?);
    }
    r.ntasks = count(set, OptId::Ntasks);
    r.cpus_per_task = count(set, OptId::CpusPerTask);
    r.ntasks_per_node = count(set, OptId::NtasksPerNode);
    r.mincpus = count(set, OptId::Mincpus);
    r.core_spec = count(set, OptId::CoreSpec);
    r.thread_spec = count(set, OptId::ThreadSpec);
    r.mem_per_node = size(ctx, set, OptId::Mem, SizeOption::Mem)?;
    r.mem_per_cpu = size(ctx, set, OptId::MemPerCpu, SizeOption::MemPerCpu)?;
    r.mem_per_gpu = size(ctx, set, OptId::MemPerGpu, SizeOption::MemPerGpu)?;
    if validate::MEMORY_OPTIONS
        .iter()
        .any(|id| validate::given_explicitly(set, *id))
    {
        let keep = |id| validate::given_explicitly(set, id);
        if !keep(OptId::Mem) {
            r.mem_per_node = None;
        }
        if !keep(OptId::MemPerCpu) {
            r.mem_per_cpu = None;
        }
        if !keep(OptId::MemPerGpu) {
            r.mem_per_gpu = None;
        }
    }
    r.tmp = size(ctx, set, OptId::Tmp, SizeOption::Tmp)?;
    if let Some(v) = set.value(OptId::Distribution) {
        r.distribution = Some(
            parse_distribution(v)
                .map_err(|_| invalid(OptId::Distribution, spec("distribution")))?,
        );
    }
    if let Some(v) = set.value(OptId::MailType) {
        r.mail_type =
            Some(parse_mail_type(v).map_err(|_| invalid(OptId::MailType, spec("mail-type")))?);
    }
    if let Some(v) = set.value(OptId::Signal) {
        let batch = ctx.cmd == Command::Sbatch;
        r.signal =
            Some(parse_signal_spec(v, batch).map_err(|_| invalid(OptId::Signal, spec("signal")))?);
    }
    if set.is_set(OptId::KillCommand) {
        // salloc's default is SIGTERM.
        r.kill_command_signal = Some(
            set.value(OptId::KillCommand)
                .and_then(sig_name2num)
                .unwrap_or(15),
        );
    }
    if let Some(v) = set.value(OptId::Dependency) {
        r.dependency =
            Some(parse_dependency(v).map_err(|e| refused(ctx, OptId::Dependency, &e.to_string()))?);
    }
    if let Some(v) = set.value(OptId::Array).filter(|v| !v.is_empty()) {
        r.array = Some(
            parse_array_spec(v, config.max_array_size)
                .map_err(|e| refused(ctx, OptId::Array, &e.to_string()))?,
        );
    }
    if set.is_set(OptId::Nice) {
        // A bare --nice means 100; values were range-checked when read.
        r.nice = Some(
            set.value(OptId::Nice)
                .filter(|v| !v.is_empty())
                .map_or(100, |v| strtol(v) as i32),
        );
    }
    r.priority = set.value(OptId::Priority).map(|v| {
        if v.eq_ignore_ascii_case("top") {
            Priority::Top
        } else {
            Priority::Value(u32::try_from(strtol(v)).unwrap_or(0))
        }
    });
    r.sharing = sharing(set);
    r.requeue = match (flag(OptId::Requeue), flag(OptId::NoRequeue)) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    };
    r.no_kill = set.get(OptId::NoKill).map(|e| {
        !e.value
            .as_deref()
            .is_some_and(|v| v.eq_ignore_ascii_case("off") || v.eq_ignore_ascii_case("no"))
    });
    r.kill_on_invalid_dep = set
        .value(OptId::KillOnInvalidDep)
        .map(|v| v.eq_ignore_ascii_case("yes"));
    r.wait_all_nodes = set.value(OptId::WaitAllNodes).map(|v| strtol(v) == 1);
    r.open_mode = set.value(OptId::OpenMode).map(|v| {
        if v.starts_with(['a', 'A']) {
            OpenMode::Append
        } else {
            OpenMode::Truncate
        }
    });
    if let Some(v) = set.value(OptId::CpuFreq) {
        r.cpu_freq = parse_cpu_freq(v).ok();
    }
    if let Some(v) = set.value(OptId::MemBind) {
        r.mem_bind = parse_mem_bind(v).ok();
    }
    if let Some(v) = set.value(OptId::DelayBoot) {
        let secs = parse_time_secs(v).map_err(|_| invalid(OptId::DelayBoot, spec("delay-boot")))?;
        r.delay_boot_secs = Some(secs.unwrap_or(INFINITE));
    }
    r.switches = switches(set);
    r.get_user_env = set
        .get(OptId::GetUserEnv)
        .map(|e| get_user_env(e.value.as_deref().unwrap_or("")));
    r.umask = set.value(OptId::Umask).and_then(pbs_umask);
    validate::check_late(ctx, set)?;
    if let Some(now) = config.now {
        // Values were checked when read; a failure here can only come from the clock, and leaves them unset.
        r.begin_epoch = set
            .value(OptId::Begin)
            .and_then(|v| parse_begin(v, now).ok());
        r.deadline_epoch = set
            .value(OptId::Deadline)
            .and_then(|v| parse_time(v, now, false).ok())
            .filter(|t| *t != 0);
    }
    if let Some(v) = set.value(OptId::Gres) {
        let known: Vec<&str> = config.gres_types.iter().map(String::as_str).collect();
        r.gres_requests = Some(parse_gres(v, &known).map_err(|e| match e {
            GresError::InvalidTres => refused(ctx, OptId::Gres, &e.to_string()),
            other => ctx.error(
                ErrorKind::InvalidValue(OptId::Gres),
                ExitClass::ErrorExit,
                &[other.to_string().as_str()],
            ),
        })?);
    }
    Ok(r)
}

fn spec(name: &str) -> String {
    format!("Invalid --{name} specification")
}

/// A failure Slurm only learns from the controller, worded as each command reports a refused request.
fn refused(ctx: &ErrCtx, id: OptId, reason: &str) -> OptError {
    let msg = match ctx.cmd {
        Command::Sbatch => format!("Batch job submission failed: {reason}"),
        Command::Srun => format!("Unable to allocate resources: {reason}"),
        Command::Salloc => format!("Job submit/allocate failed: {reason}"),
    };
    ctx.error(
        ErrorKind::InvalidValue(id),
        ExitClass::ErrorExit,
        &[msg.as_str()],
    )
}

/// `none` as an I/O file means `/dev/null`.
fn io_path(v: &str) -> String {
    if v.eq_ignore_ascii_case("none") {
        "/dev/null".to_string()
    } else {
        v.to_string()
    }
}

/// A count checked in stage 1, as the unsigned value Slurm ends up storing.
fn count(set: &OptionSet, id: OptId) -> Option<u32> {
    set.value(id)
        .and_then(|v| u32::try_from(strtol(v) as i32).ok())
}

fn size(
    ctx: &ErrCtx,
    set: &OptionSet,
    id: OptId,
    which: SizeOption,
) -> Result<Option<Megabytes>, OptError> {
    set.value(id)
        .map(|v| parse_size(which, v))
        .transpose()
        .map_err(|e| {
            ctx.error(
                ErrorKind::InvalidValue(id),
                ExitClass::Minus1,
                &[e.to_string().as_str()],
            )
        })
}

fn sharing(set: &OptionSet) -> Option<Sharing> {
    if set.is_set(OptId::Oversubscribe) {
        return Some(Sharing::Oversubscribe);
    }
    let e = set.get(OptId::Exclusive)?;
    Some(
        match e.value.as_deref().map(str::to_ascii_lowercase).as_deref() {
            Some("user") => Sharing::ExclusiveUser,
            Some("mcs") => Sharing::ExclusiveMcs,
            _ => Sharing::Exclusive,
        },
    )
}

/// `--switches=count[@time]` plus the environment-only `*_REQ_SWITCH`/`*_WAIT4SWITCH`, the option winning.
fn switches(set: &OptionSet) -> Option<Switches> {
    let (count, wait) = match set.value(OptId::Switches) {
        Some(v) => match v.split_once('@') {
            Some((c, t)) => (Some(c), Some(t)),
            None => (Some(v), set.value(OptId::SwitchWait)),
        },
        None => (set.value(OptId::SwitchReq), set.value(OptId::SwitchWait)),
    };
    let count = u32::try_from(strtol(count?) as i32).ok()?;
    // The wait is minutes-based like a time limit; what cannot be read is ignored, as sbatch does.
    let wait_secs = wait.and_then(|t| parse_time_secs(t).ok().flatten());
    Some(Switches { count, wait_secs })
}

fn get_user_env(v: &str) -> GetUserEnv {
    let digits = v.bytes().take_while(u8::is_ascii_digit).count();
    GetUserEnv {
        timeout_secs: v[..digits].parse().ok(),
        mode: v[digits..].chars().next().map(|c| c.to_ascii_uppercase()),
    }
}

/// `#PBS -W umask=`: C `strtol` with base 0 (octal with a leading 0, hex with 0x).
pub fn pbs_umask(v: &str) -> Option<u32> {
    if let Some(hex) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        return u32::from_str_radix(hex, 16).ok();
    }
    if v.starts_with('0') {
        return parse_umask(v).or(Some(0));
    }
    u32::try_from(strtol(v)).ok()
}

#[cfg(test)]
mod tests;

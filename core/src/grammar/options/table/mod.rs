//! The single option table behind sbatch, srun and salloc: parsing, environment input, `#SBATCH` handling, help
//! and usage all read these rows, so an option is described once.
//!
//! Every row is one option (one [`OptId`]): its long name and aliases, short letter, value kind, the commands that
//! accept it, the input environment variables per command, whether a `#SBATCH` line can set it, what it negates,
//! and our own help text. The set of options, their value kinds and the environment variables were taken from
//! Slurm 22.05.8's binaries (getopt's ambiguity listings and `-v` option dumps) and man pages.

mod order;
mod rows;

pub use order::GETOPT_ORDER;
pub use rows::OPTIONS;

use std::fmt;

/// One of the three Slurm submission commands that share the option table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Command {
    Sbatch,
    Srun,
    Salloc,
}

impl Command {
    /// All commands, in a fixed order.
    pub const ALL: [Command; 3] = [Command::Sbatch, Command::Srun, Command::Salloc];

    /// The program name Slurm prefixes its messages with.
    pub fn name(self) -> &'static str {
        match self {
            Command::Sbatch => "sbatch",
            Command::Srun => "srun",
            Command::Salloc => "salloc",
        }
    }

    const fn bit(self) -> u8 {
        match self {
            Command::Sbatch => 1,
            Command::Srun => 2,
            Command::Salloc => 4,
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of commands, as a small bit set usable in `const` rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cmds(u8);

impl Cmds {
    pub const NONE: Cmds = Cmds(0);
    pub const SBATCH: Cmds = Cmds(1);
    pub const SRUN: Cmds = Cmds(2);
    pub const SALLOC: Cmds = Cmds(4);
    pub const SBATCH_SRUN: Cmds = Cmds(3);
    pub const SBATCH_SALLOC: Cmds = Cmds(5);
    pub const SRUN_SALLOC: Cmds = Cmds(6);
    pub const ALL: Cmds = Cmds(7);

    /// Whether `cmd` is in the set.
    pub const fn has(self, cmd: Command) -> bool {
        self.0 & cmd.bit() != 0
    }
}

/// Whether an option takes a value, following getopt's `has_arg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgKind {
    /// A flag: `--hold`. `--hold=x` is an error.
    None,
    /// A value is required: `--partition=p` or `--partition p`.
    Required,
    /// A value may be attached (`--nice=5`, `-I5`) but is never taken from the next argument.
    Optional,
}

/// Where `--help` lists an option; mirrors the grouping of Slurm's own help output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    ParallelRun,
    Constraint,
    Consumable,
    Affinity,
    Gpu,
    Help,
    Other,
}

/// An input environment variable that sets an option for one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EnvVar {
    pub cmd: Command,
    pub name: &'static str,
}

/// Shorthand used by the rows.
pub(crate) const fn env(cmd: Command, name: &'static str) -> EnvVar {
    EnvVar { cmd, name }
}

/// One option: everything the parsers, the environment reader, help and docs need to know about it.
#[derive(Debug, Clone, Copy)]
pub struct OptDef {
    pub id: OptId,
    /// The long name without dashes. Hidden, environment-only options have a descriptive name here.
    pub long: &'static str,
    /// Other long names getopt accepts for the same option (`--cluster` for `--clusters`).
    pub aliases: &'static [&'static str],
    pub short: Option<char>,
    pub arg: ArgKind,
    /// Commands whose command line accepts the option (for sbatch, `#SBATCH` lines too).
    pub cmds: Cmds,
    /// Input environment variables, per command, highest priority first: when several are set, the first wins.
    pub env: &'static [EnvVar],
    /// Whether a `#SBATCH` occurrence takes effect. Options that act before the script is read (`--help`,
    /// `--wrap`, `-v`) parse fine in a script but are ignored there, as in Slurm.
    pub directive: bool,
    /// The option whose effect this one undoes (`--no-requeue` and `--requeue`); setting one clears the other.
    pub negates: Option<OptId>,
    pub section: Section,
    /// What `--help` and `--usage` show after the name, e.g. `=name` or `[=secs]`.
    pub metavar: &'static str,
    /// One line (or a few, separated by `\n`) in our own words.
    pub help: &'static str,
    /// Accepted but not listed by `--help`/`--usage` (undocumented aliases, environment-only settings).
    pub hidden: bool,
}

impl OptDef {
    pub(crate) const fn new(
        id: OptId,
        long: &'static str,
        short: Option<char>,
        arg: ArgKind,
        cmds: Cmds,
        metavar: &'static str,
        help: &'static str,
    ) -> OptDef {
        OptDef {
            id,
            long,
            aliases: &[],
            short,
            arg,
            cmds,
            env: &[],
            directive: true,
            negates: None,
            section: Section::ParallelRun,
            metavar,
            help,
            hidden: false,
        }
    }

    pub(crate) const fn env(mut self, env: &'static [EnvVar]) -> OptDef {
        self.env = env;
        self
    }

    pub(crate) const fn aliases(mut self, aliases: &'static [&'static str]) -> OptDef {
        self.aliases = aliases;
        self
    }

    pub(crate) const fn sec(mut self, section: Section) -> OptDef {
        self.section = section;
        self
    }

    pub(crate) const fn negates(mut self, other: OptId) -> OptDef {
        self.negates = Some(other);
        self
    }

    /// Parsed in `#SBATCH` lines but without effect there.
    pub(crate) const fn early(mut self) -> OptDef {
        self.directive = false;
        self
    }

    pub(crate) const fn hidden(mut self) -> OptDef {
        self.hidden = true;
        self
    }

    /// Whether `cmd` accepts this option on its command line.
    pub fn accepted_by(&self, cmd: Command) -> bool {
        self.cmds.has(cmd)
    }

    /// The environment variables `cmd` reads for this option, highest priority first.
    pub fn env_vars(&self, cmd: Command) -> impl Iterator<Item = &'static str> + '_ {
        self.env
            .iter()
            .filter(move |e| e.cmd == cmd)
            .map(|e| e.name)
    }

    /// All long names: the main one, then the aliases.
    pub fn long_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        std::iter::once(self.long).chain(self.aliases.iter().copied())
    }
}

/// The row for `id`. Every id has exactly one row (checked by the table tests).
pub fn def(id: OptId) -> &'static OptDef {
    // Rows are stored in `OptId` order, so the id is the index; fall back to a search if that ever breaks.
    match OPTIONS.get(id as usize) {
        Some(d) if d.id == id => d,
        _ => OPTIONS.iter().find(|d| d.id == id).unwrap_or(&OPTIONS[0]),
    }
}

/// The options `cmd` accepts on its command line, in table order.
pub fn options_for(cmd: Command) -> impl Iterator<Item = &'static OptDef> {
    OPTIONS.iter().filter(move |d| d.accepted_by(cmd))
}

/// The option `cmd` knows by this exact long name (main name or alias).
pub fn by_long(cmd: Command, name: &str) -> Option<&'static OptDef> {
    options_for(cmd).find(|d| d.long_names().any(|n| n == name))
}

/// The option `cmd` knows by this short letter.
pub fn by_short(cmd: Command, c: char) -> Option<&'static OptDef> {
    options_for(cmd).find(|d| d.short == Some(c))
}

macro_rules! opt_ids {
    ($($(#[$m:meta])* $name:ident),* $(,)?) => {
        /// A stable identifier for each option in the table. The order is the table's row order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum OptId {
            $($(#[$m])* $name),*
        }

        impl OptId {
            /// Every id, in row order.
            pub const ALL: &'static [OptId] = &[$(OptId::$name),*];
        }
    };
}

opt_ids! {
    AccelBind,
    Account,
    AcctgFreq,
    Array,
    Batch,
    Bb,
    Bbf,
    Bcast,
    BcastExclude,
    Begin,
    Bell,
    Chdir,
    ClusterConstraint,
    Clusters,
    Comment,
    Compress,
    Constraint,
    Container,
    Context,
    Contiguous,
    CoreSpec,
    CoresPerSocket,
    CpuBind,
    CpuFreq,
    CpusPerGpu,
    CpusPerTask,
    Deadline,
    DebuggerTest,
    DelayBoot,
    Dependency,
    DisableStatus,
    Distribution,
    Epilog,
    Error,
    Exact,
    Exclude,
    Exclusive,
    Export,
    ExportFile,
    ExtraNodeInfo,
    GetUserEnv,
    Gid,
    GpuBind,
    GpuFreq,
    Gpus,
    GpusPerNode,
    GpusPerSocket,
    GpusPerTask,
    Gres,
    GresFlags,
    Help,
    HetGroup,
    Hint,
    Hold,
    IgnorePbs,
    Immediate,
    Input,
    Interactive,
    JobId,
    JobName,
    KillCommand,
    KillOnBadExit,
    KillOnInvalidDep,
    Label,
    Licenses,
    MailType,
    MailUser,
    McsLabel,
    Mem,
    MemBind,
    MemPerCpu,
    MemPerGpu,
    Mincpus,
    Mpi,
    MsgTimeout,
    MultiProg,
    Network,
    Nice,
    NoAllocate,
    NoBell,
    NoKill,
    NoRequeue,
    NoShell,
    Nodefile,
    Nodelist,
    Nodes,
    Ntasks,
    NtasksPerCore,
    NtasksPerGpu,
    NtasksPerNode,
    NtasksPerSocket,
    NtasksPerTres,
    OpenMode,
    Output,
    Overcommit,
    Overlap,
    Oversubscribe,
    Parsable,
    Partition,
    PlaneSize,
    Power,
    Prefer,
    PreserveEnv,
    Priority,
    Profile,
    Prolog,
    Propagate,
    Pty,
    Qos,
    Quiet,
    QuitOnInterrupt,
    Reboot,
    Relative,
    Requeue,
    Reservation,
    ResvPorts,
    SendLibs,
    Signal,
    SlurmdDebug,
    SocketsPerNode,
    SpreadJob,
    SwitchReq,
    SwitchWait,
    Switches,
    TaskEpilog,
    TaskProlog,
    TestOnly,
    ThreadSpec,
    Threads,
    ThreadsPerCore,
    Time,
    TimeMin,
    Tmp,
    Uid,
    /// The job's umask (set by `#PBS -W umask=`; no command-line option in 22.05).
    Umask,
    Unbuffered,
    Usage,
    UseMinNodes,
    Verbose,
    Version,
    /// sbatch's `-W/--wait`: wait for the job to finish.
    Wait,
    WaitAllNodes,
    /// srun's `-W/--wait=<sec>`: how long to wait after the first task exits.
    WaitAfterExit,
    Wckey,
    Whole,
    Wrap,
    X11,
}

#[cfg(test)]
mod tests;

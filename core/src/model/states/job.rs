//! Job states as Slurm 22.05 names them: `squeue %T` (long), `squeue %t`/`ST` (compact) and the complete
//! `BASE,FLAG,...` form, plus the reverse lookup `squeue -t` uses.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::flags::{Flag, FlagSet};

/// Mask of the base-state bits in Slurm's packed job state.
pub const JOB_STATE_BASE_MASK: u32 = 0xff;

/// The base state of a job (Slurm's `enum job_states`); the discriminant is Slurm's wire value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum JobBaseState {
    #[serde(rename = "PENDING")]
    Pending = 0,
    #[serde(rename = "RUNNING")]
    Running = 1,
    #[serde(rename = "SUSPENDED")]
    Suspended = 2,
    #[serde(rename = "COMPLETED")]
    Completed = 3,
    #[serde(rename = "CANCELLED")]
    Cancelled = 4,
    #[serde(rename = "FAILED")]
    Failed = 5,
    #[serde(rename = "TIMEOUT")]
    Timeout = 6,
    #[serde(rename = "NODE_FAIL")]
    NodeFail = 7,
    #[serde(rename = "PREEMPTED")]
    Preempted = 8,
    #[serde(rename = "BOOT_FAIL")]
    BootFail = 9,
    #[serde(rename = "DEADLINE")]
    Deadline = 10,
    #[serde(rename = "OUT_OF_MEMORY")]
    OutOfMemory = 11,
}

impl JobBaseState {
    pub const ALL: [Self; 12] = [
        Self::Pending,
        Self::Running,
        Self::Suspended,
        Self::Completed,
        Self::Cancelled,
        Self::Failed,
        Self::Timeout,
        Self::NodeFail,
        Self::Preempted,
        Self::BootFail,
        Self::Deadline,
        Self::OutOfMemory,
    ];

    /// The base state for Slurm's value, `None` past `JOB_OOM`.
    pub fn from_raw(raw: u32) -> Option<Self> {
        Self::ALL.iter().copied().find(|s| s.as_raw() == raw)
    }

    pub fn as_raw(self) -> u32 {
        self as u32
    }

    /// `squeue %T` / `scontrol JobState=` name.
    pub fn long_name(self) -> &'static str {
        self.names().0
    }

    /// `squeue %t` / `ST` code.
    pub fn compact_name(self) -> &'static str {
        self.names().1
    }

    fn names(self) -> (&'static str, &'static str) {
        match self {
            Self::Pending => ("PENDING", "PD"),
            Self::Running => ("RUNNING", "R"),
            Self::Suspended => ("SUSPENDED", "S"),
            Self::Completed => ("COMPLETED", "CD"),
            Self::Cancelled => ("CANCELLED", "CA"),
            Self::Failed => ("FAILED", "F"),
            Self::Timeout => ("TIMEOUT", "TO"),
            Self::NodeFail => ("NODE_FAIL", "NF"),
            Self::Preempted => ("PREEMPTED", "PR"),
            Self::BootFail => ("BOOT_FAIL", "BF"),
            Self::Deadline => ("DEADLINE", "DL"),
            Self::OutOfMemory => ("OUT_OF_MEMORY", "OOM"),
        }
    }

    /// Slurm's `IS_JOB_FINISHED`: every base state after `SUSPENDED` is terminal.
    pub fn is_finished(self) -> bool {
        self > Self::Suspended
    }
}

/// A job state flag (Slurm's `JOB_*` bits above the base state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum JobStateFlag {
    #[serde(rename = "LAUNCH_FAILED")]
    LaunchFailed,
    #[serde(rename = "UPDATE_DB")]
    UpdateDb,
    #[serde(rename = "REQUEUED")]
    Requeue,
    #[serde(rename = "REQUEUE_HOLD")]
    RequeueHold,
    #[serde(rename = "SPECIAL_EXIT")]
    SpecialExit,
    #[serde(rename = "RESIZING")]
    Resizing,
    #[serde(rename = "CONFIGURING")]
    Configuring,
    #[serde(rename = "COMPLETING")]
    Completing,
    #[serde(rename = "STOPPED")]
    Stopped,
    #[serde(rename = "RECONFIG_FAIL")]
    ReconfigFail,
    #[serde(rename = "POWER_UP_NODE")]
    PowerUpNode,
    #[serde(rename = "REVOKED")]
    Revoked,
    #[serde(rename = "REQUEUE_FED")]
    RequeueFed,
    #[serde(rename = "RESV_DEL_HOLD")]
    ResvDelHold,
    #[serde(rename = "SIGNALING")]
    Signaling,
    #[serde(rename = "STAGE_OUT")]
    StageOut,
}

impl JobStateFlag {
    /// Flags that replace the base state in the long and compact names, strongest first.
    const DISPLAY_PRECEDENCE: [Self; 12] = [
        Self::Completing,
        Self::StageOut,
        Self::Configuring,
        Self::Resizing,
        Self::Requeue,
        Self::RequeueFed,
        Self::RequeueHold,
        Self::SpecialExit,
        Self::Stopped,
        Self::Revoked,
        Self::ResvDelHold,
        Self::Signaling,
    ];

    /// The name in the complete `BASE,FLAG` form.
    pub fn name(self) -> &'static str {
        match self {
            Self::LaunchFailed => "LAUNCH_FAILED",
            Self::UpdateDb => "UPDATE_DB",
            Self::Requeue => "REQUEUED",
            Self::RequeueHold => "REQUEUE_HOLD",
            Self::SpecialExit => "SPECIAL_EXIT",
            Self::Resizing => "RESIZING",
            Self::Configuring => "CONFIGURING",
            Self::Completing => "COMPLETING",
            Self::Stopped => "STOPPED",
            Self::ReconfigFail => "RECONFIG_FAIL",
            Self::PowerUpNode => "POWER_UP_NODE",
            Self::Revoked => "REVOKED",
            Self::RequeueFed => "REQUEUE_FED",
            Self::ResvDelHold => "RESV_DEL_HOLD",
            Self::Signaling => "SIGNALING",
            Self::StageOut => "STAGE_OUT",
        }
    }

    /// The `squeue` code for flags that show in place of the base state; `None` for bookkeeping flags.
    pub fn compact_name(self) -> Option<&'static str> {
        Some(match self {
            Self::Requeue => "RQ",
            Self::RequeueHold => "RH",
            Self::SpecialExit => "SE",
            Self::Resizing => "RS",
            Self::Configuring => "CF",
            Self::Completing => "CG",
            Self::Stopped => "ST",
            Self::Revoked => "RV",
            Self::RequeueFed => "RF",
            Self::ResvDelHold => "RD",
            Self::Signaling => "SI",
            Self::StageOut => "SO",
            Self::LaunchFailed | Self::UpdateDb | Self::ReconfigFail | Self::PowerUpNode => {
                return None
            }
        })
    }
}

impl Flag for JobStateFlag {
    const LISTING_ORDER: &'static [Self] = &[
        Self::LaunchFailed,
        Self::UpdateDb,
        Self::Completing,
        Self::Configuring,
        Self::PowerUpNode,
        Self::ReconfigFail,
        Self::Resizing,
        Self::Requeue,
        Self::RequeueFed,
        Self::RequeueHold,
        Self::SpecialExit,
        Self::Stopped,
        Self::Revoked,
        Self::ResvDelHold,
        Self::Signaling,
        Self::StageOut,
    ];

    fn bit(self) -> u32 {
        let shift = match self {
            Self::LaunchFailed => 8,
            Self::UpdateDb => 9,
            Self::Requeue => 10,
            Self::RequeueHold => 11,
            Self::SpecialExit => 12,
            Self::Resizing => 13,
            Self::Configuring => 14,
            Self::Completing => 15,
            Self::Stopped => 16,
            Self::ReconfigFail => 17,
            Self::PowerUpNode => 18,
            Self::Revoked => 19,
            Self::RequeueFed => 20,
            Self::ResvDelHold => 21,
            Self::Signaling => 22,
            Self::StageOut => 23,
        };
        1 << shift
    }
}

/// The flags set on a job.
pub type JobStateFlags = FlagSet<JobStateFlag>;

/// A job's full state: base plus flags, as Slurm packs it into one `u32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct JobState {
    pub base: JobBaseState,
    #[serde(default, skip_serializing_if = "FlagSet::is_empty")]
    pub flags: JobStateFlags,
}

impl JobState {
    pub fn new(base: JobBaseState) -> Self {
        Self {
            base,
            flags: JobStateFlags::empty(),
        }
    }

    /// Decodes Slurm's packed value; `None` when the base is not a known state. Unknown flag bits are dropped.
    pub fn from_raw(raw: u32) -> Option<Self> {
        let base = JobBaseState::from_raw(raw & JOB_STATE_BASE_MASK)?;
        Some(Self {
            base,
            flags: JobStateFlags::from_bits_truncate(raw & !JOB_STATE_BASE_MASK),
        })
    }

    /// Slurm's packed value.
    pub fn to_raw(self) -> u32 {
        self.base.as_raw() | self.flags.bits()
    }

    #[must_use]
    pub fn with(self, flag: JobStateFlag) -> Self {
        Self {
            base: self.base,
            flags: self.flags.with(flag),
        }
    }

    pub fn has(self, flag: JobStateFlag) -> bool {
        self.flags.contains(flag)
    }

    fn display_flag(self) -> Option<JobStateFlag> {
        JobStateFlag::DISPLAY_PRECEDENCE
            .iter()
            .copied()
            .find(|f| self.has(*f))
    }

    /// `job_state_string()`: what `squeue %T` and `scontrol JobState=` print.
    pub fn long_name(self) -> &'static str {
        self.display_flag()
            .map_or(self.base.long_name(), JobStateFlag::name)
    }

    /// `job_state_string_compact()`: the `squeue` `ST` column.
    pub fn compact_name(self) -> &'static str {
        self.display_flag()
            .and_then(JobStateFlag::compact_name)
            .unwrap_or(self.base.compact_name())
    }

    /// `job_state_string_complete()`: the base name followed by every flag, comma separated.
    pub fn complete_name(self) -> String {
        let mut out = self.base.long_name().to_string();
        for flag in self.flags.iter() {
            out.push(',');
            out.push_str(flag.name());
        }
        out
    }

    pub fn is_pending(self) -> bool {
        self.base == JobBaseState::Pending
    }

    pub fn is_running(self) -> bool {
        self.base == JobBaseState::Running
    }

    pub fn is_completing(self) -> bool {
        self.has(JobStateFlag::Completing)
    }

    /// Slurm's `IS_JOB_FINISHED`.
    pub fn is_finished(self) -> bool {
        self.base.is_finished()
    }
}

impl From<JobBaseState> for JobState {
    fn from(base: JobBaseState) -> Self {
        Self::new(base)
    }
}

impl fmt::Display for JobState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.long_name())
    }
}

/// A state name as `squeue -t/--states` accepts it (`job_state_num()`): a base state or a displayed flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum JobStateName {
    Base(JobBaseState),
    Flag(JobStateFlag),
}

impl JobStateName {
    /// Case-insensitive match on the long or compact name; bookkeeping flags and `COMPLETE` are rejected like
    /// Slurm rejects them.
    pub fn parse(s: &str) -> Option<Self> {
        let base = JobBaseState::ALL.iter().find(|b| {
            b.long_name().eq_ignore_ascii_case(s) || b.compact_name().eq_ignore_ascii_case(s)
        });
        if let Some(b) = base {
            return Some(Self::Base(*b));
        }
        JobStateFlag::LISTING_ORDER
            .iter()
            .find(|f| {
                f.compact_name()
                    .is_some_and(|c| c.eq_ignore_ascii_case(s) || f.name().eq_ignore_ascii_case(s))
            })
            .map(|f| Self::Flag(*f))
    }

    /// The value `job_state_num()` returns: the base value or the flag bit.
    pub fn to_raw(self) -> u32 {
        match self {
            Self::Base(b) => b.as_raw(),
            Self::Flag(f) => f.bit(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completing_running_job_shows_cg() {
        let s = JobState::new(JobBaseState::Running).with(JobStateFlag::Completing);
        assert_eq!((s.long_name(), s.compact_name()), ("COMPLETING", "CG"));
        assert_eq!(s.complete_name(), "RUNNING,COMPLETING");
        assert_eq!(s.to_raw(), 0x8001);
    }

    #[test]
    fn bookkeeping_flags_keep_the_base_name() {
        let s = JobState::new(JobBaseState::Pending).with(JobStateFlag::PowerUpNode);
        assert_eq!((s.long_name(), s.compact_name()), ("PENDING", "PD"));
    }

    #[test]
    fn from_raw_rejects_unknown_base() {
        assert_eq!(JobState::from_raw(12), None);
        assert_eq!(
            JobState::from_raw(0x8003).map(|s| s.long_name()),
            Some("COMPLETING")
        );
    }

    #[test]
    fn finished_states() {
        assert!(!JobState::new(JobBaseState::Suspended).is_finished());
        assert!(JobState::new(JobBaseState::Completed).is_finished());
    }

    #[test]
    fn serde_uses_slurm_names() {
        let s = JobState::new(JobBaseState::OutOfMemory).with(JobStateFlag::Requeue);
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, r#"{"base":"OUT_OF_MEMORY","flags":["REQUEUED"]}"#);
        assert_eq!(serde_json::from_str::<JobState>(&json).unwrap(), s);
        let plain: JobState = serde_json::from_str(r#"{"base":"PENDING"}"#).unwrap();
        assert_eq!(plain, JobState::new(JobBaseState::Pending));
    }

    #[test]
    fn state_names_parse_case_insensitively() {
        assert_eq!(
            JobStateName::parse("cg"),
            Some(JobStateName::Flag(JobStateFlag::Completing))
        );
        assert_eq!(
            JobStateName::parse("oom"),
            Some(JobStateName::Base(JobBaseState::OutOfMemory))
        );
        assert_eq!(JobStateName::parse("LAUNCH_FAILED"), None);
    }
}

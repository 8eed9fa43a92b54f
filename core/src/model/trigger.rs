//! Event triggers (`strigger`): a program the controller runs, as the trigger's owner, when a node or job event
//! happens. The numbers are Slurm 22.05's (`TRIGGER_RES_TYPE_*`, `TRIGGER_TYPE_*`, `TRIGGER_FLAG_PERM` in
//! slurm.h), so the C shim and the command print the same names as libslurm's `trigger_type()` and
//! `trigger_res_type()`.

use serde::{Deserialize, Serialize};

/// `TRIGGER_FLAG_PERM`: the trigger is armed again after it fired.
pub const FLAG_PERM: u16 = 0x0001;

/// What a trigger watches (`TRIGGER_RES_TYPE_*`).
pub const RES_JOB: u16 = 1;
pub const RES_NODE: u16 = 2;
pub const RES_SLURMCTLD: u16 = 3;
pub const RES_SLURMDBD: u16 = 4;
pub const RES_DATABASE: u16 = 5;
pub const RES_FRONT_END: u16 = 6;
pub const RES_OTHER: u16 = 7;

/// The events (`TRIGGER_TYPE_*`); a trigger carries the bits of every event it was set for.
pub const UP: u32 = 1 << 0;
pub const DOWN: u32 = 1 << 1;
pub const FAIL: u32 = 1 << 2;
pub const TIME: u32 = 1 << 3;
pub const FINI: u32 = 1 << 4;
pub const RECONFIG: u32 = 1 << 5;
pub const IDLE: u32 = 1 << 7;
pub const DRAINED: u32 = 1 << 8;
pub const PRI_CTLD_FAIL: u32 = 1 << 9;
pub const PRI_CTLD_RES_OP: u32 = 1 << 10;
pub const PRI_CTLD_RES_CTRL: u32 = 1 << 11;
pub const PRI_CTLD_ACCT_FULL: u32 = 1 << 12;
pub const BU_CTLD_FAIL: u32 = 1 << 13;
pub const BU_CTLD_RES_OP: u32 = 1 << 14;
pub const BU_CTLD_AS_CTRL: u32 = 1 << 15;
pub const PRI_DBD_FAIL: u32 = 1 << 16;
pub const PRI_DBD_RES_OP: u32 = 1 << 17;
pub const PRI_DB_FAIL: u32 = 1 << 18;
pub const PRI_DB_RES_OP: u32 = 1 << 19;
pub const BURST_BUFFER: u32 = 1 << 20;

/// `strigger --offset`'s bounds (seconds).
pub const MAX_OFFSET: i32 = 32000;

/// What `strigger --set` asks for. The owner is not part of it: the controller records the caller its
/// credential proved, so nobody can set a trigger that runs as someone else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerSpec {
    pub res_type: u16,
    /// The job id for a job trigger; a node list, or `*` (every node), for a node trigger; none for the others.
    #[serde(default)]
    pub res_id: Option<String>,
    pub trig_type: u32,
    /// Seconds after the event (before it, negative) that the program runs, within +/-32000.
    #[serde(default)]
    pub offset: i32,
    #[serde(default)]
    pub flags: u16,
    /// The program's absolute path, then its own arguments separated by blanks; the event's node list or job id
    /// is the last argument.
    pub program: String,
}

/// A trigger as the controller keeps and lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerRecord {
    pub trig_id: u32,
    pub res_type: u16,
    /// What `--get` shows under RES_ID (`*`, a node list, a job id; `None` prints `(null)` as Slurm does).
    #[serde(default)]
    pub res_id: Option<String>,
    pub trig_type: u32,
    pub offset: i32,
    pub user_id: u32,
    pub group_id: u32,
    pub flags: u16,
    pub program: String,
}

/// libslurm's `trigger_res_type()`.
pub fn res_type_name(res_type: u16) -> &'static str {
    match res_type {
        RES_JOB => "job",
        RES_NODE => "node",
        RES_SLURMCTLD => "slurmctld",
        RES_SLURMDBD => "slurmdbd",
        RES_DATABASE => "database",
        RES_FRONT_END => "front_end",
        RES_OTHER => "other",
        _ => "unknown",
    }
}

/// libslurm's `trigger_type()`: one event's name; a trigger set for several events at once is `unknown`.
pub fn type_name(trig_type: u32) -> &'static str {
    match trig_type {
        UP => "up",
        DOWN => "down",
        DRAINED => "drained",
        FAIL => "fail",
        IDLE => "idle",
        TIME => "time",
        FINI => "fini",
        RECONFIG => "reconfig",
        PRI_CTLD_FAIL => "primary_slurmctld_failure",
        PRI_CTLD_RES_OP => "primary_slurmctld_resumed_operation",
        PRI_CTLD_RES_CTRL => "primary_slurmctld_resumed_control",
        PRI_CTLD_ACCT_FULL => "primary_slurmctld_acct_buffer_full",
        BU_CTLD_FAIL => "backup_slurmctld_failure",
        BU_CTLD_RES_OP => "backup_slurmctld_resumed_operation",
        BU_CTLD_AS_CTRL => "backup_slurmctld_assumed_control",
        PRI_DBD_FAIL => "primary_slurmdbd_failure",
        PRI_DBD_RES_OP => "primary_slurmdbd_resumed_operation",
        PRI_DB_FAIL => "primary_database_failure",
        PRI_DB_RES_OP => "primary_database_resumed_operation",
        BURST_BUFFER => "burst_buffer",
        _ => "unknown",
    }
}

/// The program's path: the text up to its first white space, as slurmctld and strigger check it.
pub fn program_path(program: &str) -> &str {
    program
        .split(|c: char| c.is_ascii_whitespace())
        .next()
        .unwrap_or(program)
}

/// The argument vector a fired trigger runs: the program's base name, its own arguments (split at blanks, at
/// most 62 of them as slurmctld keeps), then `arg` (the nodes or the job id the event was about).
pub fn program_argv(program: &str, arg: &str) -> (String, Vec<String>) {
    let mut words = program.split(' ').filter(|w| !w.is_empty());
    let path = words.next().unwrap_or_default().to_string();
    let base = path.rsplit('/').next().unwrap_or(&path).to_string();
    let mut argv = vec![base];
    argv.extend(words.take(62).map(str::to_string));
    argv.push(arg.to_string());
    (path, argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_events_name_unknown_as_libslurm_does() {
        assert_eq!(type_name(DOWN), "down");
        assert_eq!(type_name(DOWN | UP), "unknown");
        assert_eq!(res_type_name(RES_FRONT_END), "front_end");
        assert_eq!(res_type_name(0), "unknown");
    }

    #[test]
    fn the_event_argument_follows_the_programs_own() {
        let (path, argv) = program_argv("/usr/bin/notify  a b", "n[1-2]");
        assert_eq!(path, "/usr/bin/notify");
        assert_eq!(argv, ["notify", "a", "b", "n[1-2]"]);
        assert_eq!(program_path("/bin/x\targ"), "/bin/x");
    }
}

//! Advance reservations (`scontrol create reservation`): a set of nodes held over a time window for some users or
//! accounts. The controller persists [`ReservationRecord`]s in its replicated state; the scheduler keeps other jobs
//! off the nodes during the window and runs `--reservation` jobs only there; `scontrol show reservation` and
//! `sinfo -T` print them.
//!
//! Supported flags are `MAINT` and `IGNORE_JOBS`; `SPEC_NODES`, `ALL_NODES` and `PART_NODES` are derived from how
//! the nodes were named, as Slurm shows them. Every field added later must be `#[serde(default)]`.

use serde::{Deserialize, Serialize};

use crate::model::job::{EpochSecs, JobRecord};

/// What `Duration=UNLIMITED` means: Slurm holds such a reservation for a year.
pub const UNLIMITED_DURATION_MIN: u32 = 365 * 24 * 60;

/// Flags of a reservation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ReservationFlags {
    /// `MAINT`: the nodes show `MAINT` while it is active, and jobs kept off wait for `Reserved for maintenance`.
    #[serde(default)]
    pub maint: bool,
    /// `IGNORE_JOBS`: created even where running jobs would still hold the nodes at its start.
    #[serde(default)]
    pub ignore_jobs: bool,
    /// The nodes were named (`Nodes=`) rather than counted (`NodeCnt=`).
    #[serde(default)]
    pub spec_nodes: bool,
    /// `Nodes=ALL`.
    #[serde(default)]
    pub all_nodes: bool,
    /// `Nodes=ALL` together with `PartitionName=`: every node of that partition.
    #[serde(default)]
    pub part_nodes: bool,
}

/// A flag an administrator may set or clear (`Flags=MAINT,IGNORE_JOBS`, `Flags-=MAINT` on update).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReservationFlag {
    Maint,
    IgnoreJobs,
}

impl ReservationFlag {
    /// Parses a comma-separated flag list; the error carries the whole list as scontrol reports it.
    pub fn parse_list(text: &str) -> Result<Vec<ReservationFlag>, String> {
        text.split(',')
            .filter(|w| !w.is_empty())
            .map(|word| match word.to_ascii_uppercase().as_str() {
                "MAINT" | "MAINTENANCE" => Ok(ReservationFlag::Maint),
                "IGNORE_JOBS" => Ok(ReservationFlag::IgnoreJobs),
                _ => Err(text.to_string()),
            })
            .collect()
    }
}

impl ReservationFlags {
    pub fn set(&mut self, flag: ReservationFlag, on: bool) {
        match flag {
            ReservationFlag::Maint => self.maint = on,
            ReservationFlag::IgnoreJobs => self.ignore_jobs = on,
        }
    }

    /// `Flags=` as `scontrol show reservation` prints it, in Slurm's order.
    pub fn render(&self) -> String {
        [
            (self.maint, "MAINT"),
            (self.ignore_jobs, "IGNORE_JOBS"),
            (self.spec_nodes, "SPEC_NODES"),
            (self.all_nodes, "ALL_NODES"),
            (self.part_nodes, "PART_NODES"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| *name)
        .collect::<Vec<_>>()
        .join(",")
    }
}

/// One reservation as the controller keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReservationRecord {
    pub name: String,
    pub start: EpochSecs,
    pub end: EpochSecs,
    /// The reserved nodes, in the cluster's order.
    pub nodes: Vec<String>,
    /// CPUs of those nodes together (`CoreCnt=`, `TRES=cpu=`).
    #[serde(default)]
    pub cpus: u32,
    /// `Users=` by name, as given, and the uids they resolved to when the reservation was made or updated.
    #[serde(default)]
    pub users: Vec<String>,
    #[serde(default)]
    pub user_ids: Vec<u32>,
    #[serde(default)]
    pub accounts: Vec<String>,
    #[serde(default)]
    pub partition: Option<String>,
    #[serde(default)]
    pub flags: ReservationFlags,
    /// The how-manieth reservation of the cluster this one was (1 on): listings show reservations in the order
    /// they were made, as slurmctld does. 0 for reservations made before it was recorded.
    #[serde(default)]
    pub created: u32,
}

impl ReservationRecord {
    /// Whether the window holds at `now` (Slurm's `ACTIVE`).
    pub fn is_active(&self, now: EpochSecs) -> bool {
        self.start <= now && now < self.end
    }

    /// Whether `[start, end)` overlaps the reservation's window.
    pub fn overlaps(&self, start: EpochSecs, end: EpochSecs) -> bool {
        start < self.end && self.start < end
    }

    pub fn holds_node(&self, node: &str) -> bool {
        self.nodes.iter().any(|n| n == node)
    }

    /// Whether a job of this user and account may run in the reservation: listed users, or listed accounts.
    pub fn admits(&self, user_id: u32, account: Option<&str>) -> bool {
        self.user_ids.contains(&user_id)
            || account.is_some_and(|a| self.accounts.iter().any(|listed| listed == a))
    }

    /// Whether a job holding resources still holds them at `t`, judged by its time limit (none: for ever).
    pub fn job_holds_at(job: &JobRecord, t: EpochSecs) -> bool {
        match (job.start_time, job.time_limit_min) {
            (Some(start), Some(limit)) => start + i64::from(limit) * 60 > t,
            _ => true,
        }
    }
}

/// `scontrol create|update reservation` fields; `None` leaves a field as it is (update) or unset (create).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReservationRequest {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub start: Option<EpochSecs>,
    #[serde(default)]
    pub end: Option<EpochSecs>,
    #[serde(default)]
    pub duration_min: Option<u32>,
    /// A hostlist expression or `ALL`.
    #[serde(default)]
    pub nodes: Option<String>,
    #[serde(default)]
    pub node_count: Option<u32>,
    #[serde(default)]
    pub users: Option<Vec<String>>,
    /// The uids of `users`, filled in by the controller's front end (which can read the user database) before
    /// the request is committed.
    #[serde(default)]
    pub user_ids: Vec<u32>,
    #[serde(default)]
    pub accounts: Option<Vec<String>>,
    #[serde(default)]
    pub partition: Option<String>,
    #[serde(default)]
    pub flags_set: Vec<ReservationFlag>,
    #[serde(default)]
    pub flags_clear: Vec<ReservationFlag>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> ReservationRecord {
        ReservationRecord {
            name: "r".into(),
            start: 100,
            end: 200,
            nodes: vec!["n1".into()],
            cpus: 2,
            users: vec!["alice".into()],
            user_ids: vec![1000],
            accounts: vec!["physics".into()],
            partition: None,
            flags: ReservationFlags::default(),
            created: 0,
        }
    }

    #[test]
    fn window_and_overlap_are_half_open() {
        let r = record();
        assert!(!r.is_active(99));
        assert!(r.is_active(100));
        assert!(!r.is_active(200));
        assert!(r.overlaps(150, 300));
        assert!(!r.overlaps(200, 300));
        assert!(!r.overlaps(0, 100));
    }

    #[test]
    fn users_or_accounts_admit() {
        let r = record();
        assert!(r.admits(1000, None));
        assert!(r.admits(0, Some("physics")));
        assert!(!r.admits(0, Some("chem")));
        assert!(!r.admits(0, None));
    }

    #[test]
    fn flags_parse_and_render_in_slurm_order() {
        let mut flags = ReservationFlags {
            spec_nodes: true,
            all_nodes: true,
            ..Default::default()
        };
        for f in ReservationFlag::parse_list("ignore_jobs,MAINT").unwrap() {
            flags.set(f, true);
        }
        assert_eq!(flags.render(), "MAINT,IGNORE_JOBS,SPEC_NODES,ALL_NODES");
        assert_eq!(
            ReservationFlag::parse_list("MAINT,BOGUS"),
            Err("MAINT,BOGUS".to_string())
        );
    }
}

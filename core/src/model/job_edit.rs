//! Edits of jobs' accounting records: what `sacctmgr modify job ... set` and libslurm's `slurmdb_job_modify`
//! change (slurmdbd 22.05's job modify: the derived exit code, the comment sacct shows, the administrator's and
//! the system's comments and the WCKey), and which records an edit selects. The controller checks and applies
//! them in its state machine (docs/accounting.md, "Editing job records"); nothing here reads a clock.
//!
//! Persisted in snapshots and the Raft log: every field added later must be `#[serde(default)]`, at the end.

use serde::{Deserialize, Serialize};

/// The fields an edit sets; `None` leaves a field as it is. Kept on the record as the sum of its edits.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct JobEdits {
    /// `DerivedExitCode=`: a wait status as given (`256` is exit code 1, `9` signal 9), as slurmdbd stores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived_ec: Option<u32>,
    /// The derived exit code was set before the job ended: slurmctld writes the job's own over it at the end.
    #[serde(default, skip_serializing_if = "is_false")]
    pub derived_ec_before_end: bool,
    /// `Comment=` (`DerivedExitString`): what sacct's `Comment` shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// `AdminComment=`: operators and administrators only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admin_comment: Option<String>,
    /// `SystemComment=`: operators and administrators only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_comment: Option<String>,
    /// `NewWCKey=`: only where slurm.conf says `TrackWCKey=yes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wckey: Option<String>,
}

fn is_false(value: &bool) -> bool {
    !value
}

impl JobEdits {
    /// Nothing to set: slurmdbd answers `SLURM_NO_CHANGE_IN_DATA`.
    pub fn is_empty(&self) -> bool {
        self.derived_ec.is_none()
            && self.comment.is_none()
            && self.admin_comment.is_none()
            && self.system_comment.is_none()
            && self.wckey.is_none()
    }

    /// Whether only an operator or administrator may make the edit (slurmdbd refuses it to anyone else before
    /// looking at the jobs).
    pub fn needs_operator(&self) -> bool {
        self.admin_comment.is_some() || self.system_comment.is_some()
    }

    /// Lays `later` over these edits: what it sets replaces what was set. `job_ended` says whether the job had
    /// ended when `later` was applied.
    pub fn merge(&mut self, later: &JobEdits, job_ended: bool) {
        if let Some(ec) = later.derived_ec {
            self.derived_ec = Some(ec);
            self.derived_ec_before_end = !job_ended;
        }
        for (mine, theirs) in [
            (&mut self.comment, &later.comment),
            (&mut self.admin_comment, &later.admin_comment),
            (&mut self.system_comment, &later.system_comment),
            (&mut self.wckey, &later.wckey),
        ] {
            if theirs.is_some() {
                mine.clone_from(theirs);
            }
        }
    }

    /// The edits as a record of a job that has now ended shows them: a derived exit code set while it ran was
    /// overwritten by the job's own at its end.
    pub fn as_ended(&self) -> JobEdits {
        let mut out = self.clone();
        if out.derived_ec_before_end {
            out.derived_ec = None;
            out.derived_ec_before_end = false;
        }
        out
    }

    /// `(exit code, signal)` of a wait status, as sacct reads `derived_ec` (`WIFSIGNALED`, `WEXITSTATUS`).
    pub fn wait_status_parts(status: u32) -> (u32, u32) {
        let signal = status & 0x7f;
        if signal != 0 && signal != 0x7f {
            (0, signal)
        } else if signal == 0 {
            ((status >> 8) & 0xff, 0)
        } else {
            (0, 0)
        }
    }
}

/// Which records an edit changes (sacctmgr's `where`); an empty list selects on the others alone.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct JobEditCond {
    /// `JobID=`: a job (an array's id selects its tasks).
    #[serde(default)]
    pub job_ids: Vec<u32>,
    /// `Users=`, as user ids.
    #[serde(default)]
    pub user_ids: Vec<u32>,
    /// `Accounts=`, lower case.
    #[serde(default)]
    pub accounts: Vec<String>,
}

/// `sacctmgr modify job where COND set EDITS`, `slurmdb_job_modify(cond, rec)`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct JobEditRequest {
    pub cond: JobEditCond,
    pub set: JobEdits,
}

/// A job an edit changed: its id and submission time, for slurmdbd's `JOBID submitted at TIME` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditedJob {
    pub job_id: u32,
    pub submit: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_edits_replace_and_a_running_jobs_exit_code_gives_way_at_its_end() {
        let mut kept = JobEdits::default();
        assert!(kept.is_empty());
        kept.merge(
            &JobEdits {
                derived_ec: Some(256),
                comment: Some("a".into()),
                ..Default::default()
            },
            false,
        );
        kept.merge(
            &JobEdits {
                admin_comment: Some("b".into()),
                ..Default::default()
            },
            true,
        );
        assert_eq!(kept.comment.as_deref(), Some("a"));
        assert_eq!(kept.admin_comment.as_deref(), Some("b"));
        assert!(kept.derived_ec_before_end && kept.needs_operator());
        assert_eq!(kept.as_ended().derived_ec, None);
        assert_eq!(kept.as_ended().comment.as_deref(), Some("a"));
    }

    #[test]
    fn wait_statuses_read_as_sacct_reads_them() {
        assert_eq!(JobEdits::wait_status_parts(256), (1, 0));
        assert_eq!(JobEdits::wait_status_parts(9), (0, 9));
        assert_eq!(JobEdits::wait_status_parts(0), (0, 0));
        assert_eq!(JobEdits::wait_status_parts(0x7f), (0, 0));
    }
}

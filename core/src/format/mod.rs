//! The text and JSON that `squeue`, `sinfo` and `scontrol show` print, as pure functions of the controller's
//! records, matching Slurm 22.05 byte for byte.
//!
//! Everything that would need the operating system (the clock, the local time zone, user and group names) comes
//! in through [`FormatContext`]. Entry points:
//! - [`squeue::render`] and [`json::squeue_json`] for jobs, [`sprio::render`] for their priority factors,
//! - [`sinfo::render`] and [`json::sinfo_json`] for nodes and partitions,
//! - [`scontrol_job::render`], [`scontrol_node::render`], [`scontrol_partition::render`],
//!   [`scontrol_config::render`] for `scontrol show ...`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::model::job::EpochSecs;

mod arrays;
pub mod columns;
pub mod job_view;
pub mod json;
pub mod json_jobs;
pub mod json_nodes;
pub mod json_partitions;
pub mod json_reservations;
pub mod json_sacct;
pub mod name_cache;
pub mod node_view;
pub mod option_dump;
pub mod print_fields;
pub mod sacct;
pub mod sacct_import;
pub mod sacct_import_json;
pub mod sacctmgr;
pub mod sacctmgr_file;
pub mod sacctmgr_load;
pub mod scontrol_config;
pub mod scontrol_job;
mod scontrol_job_details;
pub mod scontrol_license;
pub mod scontrol_node;
pub mod scontrol_partition;
pub mod scontrol_reservation;
pub mod seff;
pub mod sinfo;
mod sinfo_fields;
mod sinfo_group;
pub mod sprio;
pub mod squeue;
mod squeue_fields;
pub mod squeue_needs;
mod squeue_sort;
mod squeue_table;
pub mod sreport;
pub mod sreport_assoc;
pub mod sshare;
pub mod sstat;
pub mod steps;
pub mod strigger;
pub mod time;
pub mod time_format;
pub mod units;

#[cfg(test)]
mod test_records;

pub use arrays::format_task_ids;
pub use columns::{Column, Layout};

/// What formatting needs from the machine it runs on: the current time, the local UTC offset (Slurm prints local
/// times), and user/group names by id. Ids without a name print as numbers, as Slurm does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FormatContext {
    pub now: EpochSecs,
    pub utc_offset_secs: i32,
    pub users: BTreeMap<u32, String>,
    pub groups: BTreeMap<u32, String>,
    /// The cluster name (`cluster` in `squeue --json`).
    pub cluster_name: String,
    /// The type each node has each GRES under (node, then GRES name), for the GRES a job holds there
    /// (`gres_detail` in `squeue --json`); empty when nobody asked for the nodes.
    pub node_gres_types: BTreeMap<String, BTreeMap<String, String>>,
    /// How timestamps print (`SLURM_TIME_FORMAT`).
    pub time_format: time_format::TimeFormat,
}

impl FormatContext {
    pub fn new(now: EpochSecs, utc_offset_secs: i32) -> FormatContext {
        FormatContext {
            now,
            utc_offset_secs,
            ..FormatContext::default()
        }
    }

    pub fn with_user(mut self, uid: u32, name: &str) -> FormatContext {
        self.users.insert(uid, name.to_string());
        self
    }

    pub fn with_group(mut self, gid: u32, name: &str) -> FormatContext {
        self.groups.insert(gid, name.to_string());
        self
    }

    /// Notes the GRES types of `nodes` (the first type a node lists for a name).
    pub fn with_node_gres(mut self, nodes: &[crate::model::records::NodeRecord]) -> FormatContext {
        for node in nodes {
            let types = self.node_gres_types.entry(node.name.clone()).or_default();
            for gres in &node.gres {
                if let Some(t) = &gres.gres_type {
                    types.entry(gres.name.clone()).or_insert_with(|| t.clone());
                }
            }
        }
        self
    }

    pub fn with_cluster(mut self, name: &str) -> FormatContext {
        self.cluster_name = name.to_string();
        self
    }

    /// The user's name, or the uid as text when unknown (Slurm's `uid_to_string`).
    pub fn user_name(&self, uid: u32) -> String {
        self.user_name_text(uid).into_owned()
    }

    /// [`FormatContext::user_name`], borrowed when the name is known.
    pub fn user_name_text(&self, uid: u32) -> Cow<'_, str> {
        match self.users.get(&uid) {
            Some(name) => Cow::Borrowed(name),
            None => Cow::Owned(uid.to_string()),
        }
    }

    /// The group's name, or the gid as text when unknown.
    pub fn group_name(&self, gid: u32) -> String {
        self.group_name_text(gid).into_owned()
    }

    /// [`FormatContext::group_name`], borrowed when the name is known.
    pub fn group_name_text(&self, gid: u32) -> Cow<'_, str> {
        match self.groups.get(&gid) {
            Some(name) => Cow::Borrowed(name),
            None => Cow::Owned(gid.to_string()),
        }
    }

    pub fn with_time_format(mut self, format: time_format::TimeFormat) -> FormatContext {
        self.time_format = format;
        self
    }

    /// A local timestamp, `2026-11-30T14:57:35` (or as `SLURM_TIME_FORMAT` asks).
    pub fn time(&self, t: EpochSecs) -> String {
        match self.time_format {
            time_format::TimeFormat::Standard => time::iso(t, self.utc_offset_secs),
            _ => self.time_format.render(t, self.utc_offset_secs, self.now),
        }
    }

    /// A local timestamp or `zero_text` for unset times.
    pub fn time_or(&self, t: Option<EpochSecs>, zero_text: &str) -> String {
        match t {
            Some(t) if t != 0 => self.time(t),
            _ => zero_text.to_string(),
        }
    }
}

/// Errors in user-supplied format or sort specifications; texts are Slurm's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error("Invalid sort specification: {0}")]
    InvalidSort(String),
    #[error("Invalid job state specified: {0}")]
    InvalidJobState(String),
    #[error("Bad state string: \"{0}\"")]
    InvalidNodeState(String),
}

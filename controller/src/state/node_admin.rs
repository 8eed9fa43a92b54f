//! `scontrol create|delete NodeName=` (administrators only). Slurm 22.05 creates only `State=FUTURE` (or `CLOUD`)
//! nodes, into the spare slots `MaxNodeCount` reserves. Without spare slots slurmctld logs `node table is full`
//! and answers success without adding a node; Spur does the same (the server logs the line). With spare slots
//! Slurm adds a hidden node, which Spur cannot yet, so that creation is refused with `ESLURM_NOT_SUPPORTED`
//! (docs/compatibility.md). Deleting takes idle nodes out of the cluster and its partitions until a restart
//! applies slurm.conf again, as in Slurm.

use spur_core::wire::api::{ApiError, SlurmErrno};

use super::{jobs, Applied, ApplyResult, ClusterState};

impl ClusterState {
    pub(super) fn create_node(&mut self, caller_uid: u32, definition: &str) -> ApplyResult {
        if !self.is_admin(caller_uid) {
            return Err(ApiError::new(SlurmErrno::UserIdMissing));
        }
        let future_or_cloud = definition.split_whitespace().any(|word| {
            word.split_once('=').is_some_and(|(k, v)| {
                k.eq_ignore_ascii_case("state")
                    && (v.eq_ignore_ascii_case("FUTURE") || v.eq_ignore_ascii_case("CLOUD"))
            })
        });
        if !future_or_cloud {
            return Err(ApiError::with_detail(
                SlurmErrno::InvalidNodeState,
                "Only State=FUTURE and State=CLOUD allowed for nodes created by scontrol",
            ));
        }
        if self.has_spare_node_slots() {
            return Err(ApiError::new(SlurmErrno::NotSupported));
        }
        Ok(Applied::default())
    }

    /// Whether `MaxNodeCount` leaves room for a node beyond those the cluster has.
    pub(crate) fn has_spare_node_slots(&self) -> bool {
        self.settings
            .max_node_count
            .is_some_and(|max| usize::try_from(max).is_ok_and(|max| max > self.nodes.len()))
    }

    /// Every listed node must exist; a node a job holds resources on, or that a reservation holds, is busy (a
    /// reservation names its nodes for its whole window).
    pub(super) fn delete_nodes(&mut self, caller_uid: u32, list: &str) -> ApplyResult {
        if !self.is_admin(caller_uid) {
            return Err(ApiError::new(SlurmErrno::UserIdMissing));
        }
        let invalid = || {
            ApiError::with_detail(
                SlurmErrno::InvalidNodeName,
                format!("failed to delete nodes {list}"),
            )
        };
        let names = spur_core::grammar::hostlist::expand(list).map_err(|_| invalid())?;
        if names.is_empty() || names.iter().any(|n| !self.nodes.contains_key(n)) {
            return Err(invalid());
        }
        let busy = self.jobs.values().any(|j| {
            jobs::holds_resources(j)
                && j.alloc
                    .as_ref()
                    .is_some_and(|a| a.node_names.iter().any(|n| names.contains(n)))
        });
        let reserved = self
            .reservations
            .values()
            .any(|r| r.nodes.iter().any(|n| names.contains(n)));
        if busy || reserved {
            return Err(ApiError::new(SlurmErrno::NodesBusy));
        }
        for name in &names {
            self.nodes.remove(name);
        }
        for partition in &mut self.partitions {
            partition.nodes.retain(|n| !names.contains(n));
            partition.nodes_expr = spur_core::grammar::hostlist::compress(&partition.nodes);
        }
        Ok(Applied::default())
    }
}

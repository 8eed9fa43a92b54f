//! Partitions changed at run time (`scontrol create|update|delete PartitionName=`), administrators only. A partition
//! created so is remembered by name, so a restart's `ApplyConfig` (which replaces the configured partitions) keeps it,
//! as slurmctld recreates partitions of its state file that slurm.conf lacks.

use spur_core::model::partition_spec::PartitionSpec;
use spur_core::model::records::PartitionRecord;
use spur_core::wire::api::{ApiError, SlurmErrno};

use super::{Applied, ApplyResult, ClusterState};

impl ClusterState {
    pub(super) fn create_partition(&mut self, caller_uid: u32, spec: PartitionSpec) -> ApplyResult {
        self.require_admin(caller_uid)?;
        if spec.name.is_empty() || self.partition(&spec.name).is_some() {
            return Err(ApiError::new(SlurmErrno::InvalidPartitionName));
        }
        let nodes = self.resolve_partition_nodes(spec.nodes.as_deref().unwrap_or(""))?;
        let record = spec.new_record(nodes);
        if record.default {
            self.clear_default_partition();
        }
        self.runtime_partitions.insert(record.name.clone());
        self.partitions.push(record);
        self.refresh_node_partitions();
        Ok(Applied::default())
    }

    pub(super) fn modify_partition(&mut self, caller_uid: u32, spec: PartitionSpec) -> ApplyResult {
        self.require_admin(caller_uid)?;
        if self.partition(&spec.name).is_none() {
            return Err(ApiError::new(SlurmErrno::InvalidPartitionName));
        }
        let nodes = match spec.nodes.as_deref() {
            Some(expr) => Some(self.resolve_partition_nodes(expr)?),
            None => None,
        };
        if spec.default == Some(true) {
            self.clear_default_partition();
        }
        if let Some(record) = self.partitions.iter_mut().find(|p| p.name == spec.name) {
            spec.apply(record, nodes);
        }
        self.refresh_node_partitions();
        Ok(Applied::default())
    }

    /// Refused while a job that has not ended is in (or asks for) the partition, as slurmctld refuses it, or while
    /// a reservation is made for it (it would be left naming nothing).
    pub(super) fn delete_partition(&mut self, caller_uid: u32, name: &str) -> ApplyResult {
        self.require_admin(caller_uid)?;
        if self.partition(name).is_none() {
            return Err(ApiError::new(SlurmErrno::InvalidPartitionName));
        }
        let in_use = self.jobs.values().any(|job| {
            (!job.is_finished() || job.completing)
                && (job.partition == name
                    || job
                        .spec
                        .partition
                        .as_deref()
                        .is_some_and(|list| list.split(',').any(|p| p == name)))
        });
        let reserved = self
            .reservations
            .values()
            .any(|r| r.partition.as_deref() == Some(name));
        if in_use || reserved {
            return Err(ApiError::new(SlurmErrno::PartitionInUse));
        }
        self.partitions.retain(|p| p.name != name);
        self.runtime_partitions.remove(name);
        self.refresh_node_partitions();
        Ok(Applied::default())
    }

    /// Partitions created at run time that the new configuration does not define, to keep across `ApplyConfig`.
    pub(super) fn runtime_partitions_outside(
        &self,
        configured: &[PartitionRecord],
    ) -> Vec<PartitionRecord> {
        self.partitions
            .iter()
            .filter(|p| {
                self.runtime_partitions.contains(&p.name)
                    && configured.iter().all(|c| c.name != p.name)
            })
            .cloned()
            .collect()
    }

    fn require_admin(&self, caller_uid: u32) -> Result<(), ApiError> {
        // slurmctld answers a non-administrator's partition and node changes with "Invalid user id".
        if self.is_admin(caller_uid) {
            Ok(())
        } else {
            Err(ApiError::new(SlurmErrno::UserIdMissing))
        }
    }

    fn clear_default_partition(&mut self) {
        for p in &mut self.partitions {
            p.default = false;
        }
    }

    /// `ALL` is every node; otherwise each name of the hostlist must be a node of the cluster.
    fn resolve_partition_nodes(&self, expr: &str) -> Result<Vec<String>, ApiError> {
        if expr.is_empty() {
            return Ok(Vec::new());
        }
        if expr.eq_ignore_ascii_case("ALL") {
            return Ok(self.nodes.keys().cloned().collect());
        }
        let invalid = || ApiError::new(SlurmErrno::InvalidNodeName);
        let names = spur_core::grammar::hostlist::expand(expr).map_err(|_| invalid())?;
        if names.iter().any(|n| !self.nodes.contains_key(n)) {
            return Err(invalid());
        }
        let mut unique: Vec<String> = Vec::with_capacity(names.len());
        for name in names {
            if !unique.contains(&name) {
                unique.push(name);
            }
        }
        Ok(unique)
    }

    /// Each node lists the partitions it belongs to, in partition order.
    pub(super) fn refresh_node_partitions(&mut self) {
        for node in self.nodes.values_mut() {
            node.partitions = self
                .partitions
                .iter()
                .filter(|p| p.nodes.contains(&node.name))
                .map(|p| p.name.clone())
                .collect();
            node.billing_weights = node_billing_weights(&self.partitions, &node.name);
        }
    }
}

/// The `TRESBillingWeights` a node's TRES are weighed by: those of the first partition holding it that has them,
/// as slurmctld takes them (checked against 22.05: a node in a partition without weights, then in one with
/// `CPU=1.0,Mem=0.25G`, then in others with weights shows `CfgTRES=...billing=7` for 2 CPUs and 23,593 MB).
pub(super) fn node_billing_weights(partitions: &[PartitionRecord], node: &str) -> Option<String> {
    partitions
        .iter()
        .filter(|p| p.nodes.iter().any(|n| n == node))
        .find_map(|p| p.tres_billing_weights.clone())
}

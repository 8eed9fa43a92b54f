//! Partitions made or changed at run time: what `scontrol create|update PartitionName=...` and
//! `slurm_create_partition`/`slurm_update_partition` send. A field left `None` keeps its value on update and takes
//! the value Slurm gives a partition created by scontrol on create.

use serde::{Deserialize, Serialize};

use crate::model::records::{PartitionRecord, PartitionState, PreemptMode};

/// Slurm's `update_part_msg_t`, reduced to the fields Spur's partitions have.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PartitionSpec {
    pub name: String,
    /// A hostlist expression, `ALL` for every node; empty removes all nodes.
    pub nodes: Option<String>,
    pub default: Option<bool>,
    /// Minutes; `Some(None)` is UNLIMITED.
    #[serde(
        default,
        with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_time_min: Option<Option<u32>>,
    /// Minutes; `Some(None)` is NONE.
    #[serde(
        default,
        with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub default_time_min: Option<Option<u32>>,
    /// `Some(None)` is UNLIMITED.
    #[serde(
        default,
        with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_nodes: Option<Option<u32>>,
    pub min_nodes: Option<u32>,
    pub state: Option<PartitionState>,
    pub priority_tier: Option<u32>,
    pub priority_job_factor: Option<u32>,
    /// Access lists; `Some(None)` is ALL (or, for the deny lists, none).
    #[serde(
        default,
        with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub allow_groups: Option<Option<String>>,
    #[serde(
        default,
        with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub allow_accounts: Option<Option<String>>,
    #[serde(
        default,
        with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub allow_qos: Option<Option<String>>,
    #[serde(
        default,
        with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub deny_accounts: Option<Option<String>>,
    #[serde(
        default,
        with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub deny_qos: Option<Option<String>>,
    pub hidden: Option<bool>,
    pub root_only: Option<bool>,
    pub disable_root_jobs: Option<bool>,
    /// `NO`, `EXCLUSIVE`, `YES:N` or `FORCE:N`.
    pub oversubscribe: Option<String>,
    pub preempt_mode: Option<PreemptMode>,
    /// `Some(None)` is UNLIMITED.
    #[serde(
        default,
        with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_mem_per_node_mb: Option<Option<u64>>,
    /// `DefMemPerCPU=` (MB); replaces a `DefMemPerNode`.
    pub def_mem_per_cpu_mb: Option<u64>,
    /// `DefMemPerNode=` (MB); replaces a `DefMemPerCPU`.
    pub def_mem_per_node_mb: Option<u64>,
}

impl PartitionSpec {
    /// Whether the update changes nothing (scontrol refuses such an update before asking the controller).
    pub fn changes_nothing(&self) -> bool {
        *self
            == PartitionSpec {
                name: self.name.clone(),
                ..PartitionSpec::default()
            }
    }

    /// The record `scontrol create partition` makes: Slurm's defaults for a partition without a slurm.conf line
    /// (MinNodes=1, PriorityJobFactor=1, PriorityTier=1, State=UP), with this spec's fields on top. `nodes` are
    /// the resolved node names.
    pub fn new_record(&self, nodes: Vec<String>) -> PartitionRecord {
        // A created partition has MinNodes=1 where one of slurm.conf defaults to 0.
        let mut record = PartitionRecord {
            min_nodes: 1,
            ..PartitionRecord::with_nodes(&self.name, &[])
        };
        self.apply(&mut record, Some(nodes));
        record
    }

    /// Sets the fields this spec names; `nodes` (resolved names) replaces the node list when given.
    pub fn apply(&self, record: &mut PartitionRecord, nodes: Option<Vec<String>>) {
        fn set<T: Clone>(field: &mut T, value: &Option<T>) {
            if let Some(v) = value {
                *field = v.clone();
            }
        }
        if let Some(nodes) = nodes {
            record.nodes_expr = crate::grammar::hostlist::compress(&nodes);
            record.nodes = nodes;
        }
        set(&mut record.default, &self.default);
        set(&mut record.max_time_min, &self.max_time_min);
        set(&mut record.default_time_min, &self.default_time_min);
        set(&mut record.max_nodes, &self.max_nodes);
        set(&mut record.min_nodes, &self.min_nodes);
        set(&mut record.state, &self.state);
        set(&mut record.priority_tier, &self.priority_tier);
        set(&mut record.priority_job_factor, &self.priority_job_factor);
        set(&mut record.allow_groups, &self.allow_groups);
        set(&mut record.allow_accounts, &self.allow_accounts);
        set(&mut record.allow_qos, &self.allow_qos);
        set(&mut record.deny_accounts, &self.deny_accounts);
        set(&mut record.deny_qos, &self.deny_qos);
        set(&mut record.hidden, &self.hidden);
        set(&mut record.root_only, &self.root_only);
        set(&mut record.disable_root_jobs, &self.disable_root_jobs);
        set(&mut record.oversubscribe, &self.oversubscribe);
        set(&mut record.max_mem_per_node_mb, &self.max_mem_per_node_mb);
        if let Some(mb) = self.def_mem_per_cpu_mb {
            record.def_mem_per_cpu_mb = Some(mb);
            record.def_mem_per_node_mb = None;
        }
        if let Some(mb) = self.def_mem_per_node_mb {
            record.def_mem_per_node_mb = Some(mb);
            record.def_mem_per_cpu_mb = None;
        }
        if let Some(mode) = self.preempt_mode {
            record.preempt_mode = Some(mode);
        }
    }
}

/// `Some(None)` (set to unlimited/ALL) travels as `null`, an absent field is `None` (unchanged): plain serde would
/// read both back as `None`.
mod double_option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer, T: Serialize>(
        value: &Option<Option<T>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            None => serializer.serialize_none(),
            Some(inner) => inner.serialize(serializer),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        deserializer: D,
    ) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(deserializer).map(Some)
    }
}

/// An access list as given: `ALL` (any case) or empty means no restriction.
pub fn access_list(value: &str) -> Option<String> {
    if value.is_empty() || value.eq_ignore_ascii_case("ALL") {
        None
    } else {
        Some(value.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_partition_takes_slurms_defaults_under_the_spec() {
        let spec = PartitionSpec {
            name: "p2".into(),
            max_time_min: Some(Some(30)),
            state: Some(PartitionState::Down),
            ..PartitionSpec::default()
        };
        let record = spec.new_record(vec!["n1".into(), "n2".into()]);
        assert_eq!(record.nodes_expr, "n[1-2]");
        assert_eq!(record.min_nodes, 1);
        assert_eq!(record.priority_tier, 1);
        assert_eq!(record.max_time_min, Some(30));
        assert_eq!(record.state, PartitionState::Down);
        assert_eq!(record.oversubscribe, "NO");
        assert!(!record.default);
    }

    #[test]
    fn update_changes_only_named_fields() {
        let mut record = PartitionSpec {
            name: "p".into(),
            max_time_min: Some(Some(30)),
            ..PartitionSpec::default()
        }
        .new_record(vec!["n1".into()]);
        let update = PartitionSpec {
            name: "p".into(),
            max_time_min: Some(None),
            allow_groups: Some(access_list("wheel")),
            ..PartitionSpec::default()
        };
        assert!(!update.changes_nothing());
        update.apply(&mut record, None);
        assert_eq!(record.max_time_min, None);
        assert_eq!(record.allow_groups.as_deref(), Some("wheel"));
        assert_eq!(record.nodes, vec!["n1".to_string()]);
        assert!(PartitionSpec {
            name: "p".into(),
            ..PartitionSpec::default()
        }
        .changes_nothing());
        assert_eq!(access_list("all"), None);
        let per_node = PartitionSpec {
            name: "p".into(),
            def_mem_per_node_mb: Some(2048),
            ..PartitionSpec::default()
        };
        record.def_mem_per_cpu_mb = Some(100);
        per_node.apply(&mut record, None);
        assert_eq!(
            (record.def_mem_per_cpu_mb, record.def_mem_per_node_mb),
            (None, Some(2048))
        );
    }

    #[test]
    fn unlimited_and_unchanged_survive_the_wire() {
        let spec = PartitionSpec {
            name: "p".into(),
            max_time_min: Some(None),
            max_nodes: Some(Some(2)),
            ..PartitionSpec::default()
        };
        let json = serde_json::to_string(&spec).unwrap();
        let back: PartitionSpec = serde_json::from_str(&json).unwrap();
        assert_eq!(back, spec);
        assert_eq!(back.default_time_min, None);
    }
}

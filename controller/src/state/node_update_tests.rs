//! `scontrol update NodeName=... Weight=N` and `scontrol create NodeName=...` in the state machine: who may, what
//! changes, what the scheduler then does, and how entries written before weights could change still read.

use pretty_assertions::assert_eq;

use spur_core::model::records::NodeBaseState;
use spur_core::wire::api::{ControlRequest, NodeUpdateState, SlurmErrno};

use super::*;
use crate::scheduler::scenario::{job, node, partition, Scenario};

fn two_nodes(settings: Settings) -> Scenario {
    let names = ["w1".to_string(), "w2".to_string()];
    let defs = vec![node("w1", 4, 4_000, 0), node("w2", 4, 4_000, 0)];
    Scenario::new(
        defs,
        vec![partition("batch", &names, true)],
        settings,
        1_000_000,
    )
    .expect("cluster")
}

fn control(s: &mut Scenario, uid: u32, request: ControlRequest) -> Result<Applied, ApiError> {
    let now = s.now;
    s.apply(Command::Control {
        caller_uid: uid,
        request,
        now,
    })
}

fn set_weight(nodes: &[&str], weight: u32) -> ControlRequest {
    ControlRequest::UpdateNode {
        nodes: nodes.iter().map(|n| n.to_string()).collect(),
        state: None,
        reason: None,
        weight: Some(weight),
        features: None,
        active_features: None,
    }
}

/// The node a one-CPU job is started on by the next pass.
fn node_of_next_job(s: &mut Scenario) -> String {
    let id = s.submit(job(1, 100, 0, None)).expect("submit");
    let plan = s.pass().expect("pass");
    let (_, alloc) = plan
        .starts
        .iter()
        .find(|(job, _)| *job == id)
        .expect("started");
    alloc.node_names[0].clone()
}

#[test]
fn an_administrator_sets_a_weight_and_the_scheduler_follows_it() {
    let mut s = two_nodes(Settings::default());
    assert_eq!(node_of_next_job(&mut s), "w1");
    assert_eq!(
        control(&mut s, 1000, set_weight(&["w2"], 0))
            .unwrap_err()
            .errno,
        SlurmErrno::UserIdMissing
    );
    assert_eq!(s.state.nodes["w2"].weight, 1);
    assert_eq!(
        control(&mut s, 0, set_weight(&["w2", "nosuch"], 0))
            .unwrap_err()
            .errno,
        SlurmErrno::InvalidNodeName
    );
    assert_eq!(s.state.nodes["w2"].weight, 1);
    control(&mut s, 0, set_weight(&["w1"], 10_000)).unwrap();
    assert_eq!(s.state.nodes["w1"].weight, 10_000);
    // Lower weights are used first: the next job goes to w2 although w1 has room.
    assert_eq!(node_of_next_job(&mut s), "w2");
    // A weight alone leaves the state and reason alone.
    assert_eq!(s.state.nodes["w1"].base_state, NodeBaseState::Mixed);
    assert!(!s.state.nodes["w1"].drain);
}

#[test]
fn a_state_and_a_weight_change_together() {
    let mut s = two_nodes(Settings::default());
    control(
        &mut s,
        0,
        ControlRequest::UpdateNode {
            nodes: vec!["w1".into()],
            state: Some(NodeUpdateState::Drain),
            reason: Some("maint".into()),
            weight: Some(5),
            features: None,
            active_features: None,
        },
    )
    .unwrap();
    let n = &s.state.nodes["w1"];
    assert!(n.drain);
    assert_eq!(n.reason.as_deref(), Some("maint"));
    assert_eq!(n.weight, 5);
    // A drain without a reason is refused before anything changes.
    let refused = control(
        &mut s,
        0,
        ControlRequest::UpdateNode {
            nodes: vec!["w2".into()],
            state: Some(NodeUpdateState::Drain),
            reason: None,
            weight: Some(7),
            features: None,
            active_features: None,
        },
    );
    assert_eq!(refused.unwrap_err().errno, SlurmErrno::Error);
    assert_eq!(s.state.nodes["w2"].weight, 1);
}

#[test]
fn an_update_written_before_weights_still_reads_and_applies() {
    // The JSON a controller without weights wrote into its Raft log and sent on the wire.
    let old = r#"{"UpdateNode":{"nodes":["w2"],"state":"Drain","reason":"old"}}"#;
    let request: ControlRequest = serde_json::from_str(old).unwrap();
    assert_eq!(
        request,
        ControlRequest::UpdateNode {
            nodes: vec!["w2".into()],
            state: Some(NodeUpdateState::Drain),
            reason: Some("old".into()),
            weight: None,
            features: None,
            active_features: None,
        }
    );
    let mut s = two_nodes(Settings::default());
    control(&mut s, 0, request).unwrap();
    assert!(s.state.nodes["w2"].drain);
    assert_eq!(s.state.nodes["w2"].weight, 1);
    // And a new state-only update reads on an old controller: the state is written as before.
    let new = serde_json::to_value(ControlRequest::UpdateNode {
        nodes: vec!["w2".into()],
        state: Some(NodeUpdateState::Resume),
        reason: None,
        weight: None,
        features: None,
        active_features: None,
    })
    .unwrap();
    assert_eq!(new["UpdateNode"]["state"], "Resume");
}

#[test]
fn a_weight_set_at_run_time_gives_way_to_slurm_conf_on_reconfiguration() {
    let mut s = two_nodes(Settings::default());
    control(&mut s, 0, set_weight(&["w1"], 9)).unwrap();
    let names = ["w1".to_string(), "w2".to_string()];
    s.apply(Command::ApplyConfig(Box::new(ConfigSnapshot {
        cluster: spur_core::model::records::ClusterConfig::default(),
        settings: Settings::default(),
        nodes: vec![node("w1", 4, 4_000, 0), node("w2", 4, 4_000, 0)],
        partitions: vec![partition("batch", &names, true)],
    })))
    .unwrap();
    assert_eq!(s.state.nodes["w1"].weight, 1);
}

#[test]
fn creating_a_node_without_spare_slots_succeeds_and_adds_nothing() {
    let mut s = two_nodes(Settings::default());
    let create = |definition: &str| ControlRequest::CreateNode {
        definition: definition.into(),
    };
    control(&mut s, 0, create("NodeName=w9 State=FUTURE")).unwrap();
    control(&mut s, 0, create("NodeName=w9 State=cloud CPUs=2")).unwrap();
    assert_eq!(s.state.nodes.len(), 2);
    assert_eq!(
        control(&mut s, 0, create("NodeName=w9 State=IDLE"))
            .unwrap_err()
            .errno,
        SlurmErrno::InvalidNodeState
    );
    assert_eq!(
        control(&mut s, 1000, create("NodeName=w9 State=FUTURE"))
            .unwrap_err()
            .errno,
        SlurmErrno::UserIdMissing
    );
    // MaxNodeCount no larger than the cluster leaves no spare slot either.
    let mut full = two_nodes(Settings {
        max_node_count: Some(2),
        ..Settings::default()
    });
    control(&mut full, 0, create("NodeName=w9 State=FUTURE")).unwrap();
    // With spare slots Slurm would add a hidden node, which Spur cannot yet.
    let mut spare = two_nodes(Settings {
        max_node_count: Some(8),
        ..Settings::default()
    });
    assert_eq!(
        control(&mut spare, 0, create("NodeName=w9 State=FUTURE"))
            .unwrap_err()
            .errno,
        SlurmErrno::NotSupported
    );
    assert_eq!(spare.state.nodes.len(), 2);
}

#[test]
fn new_features_are_what_constraints_match_next() {
    let mut s = two_nodes(Settings::default());
    let mut wants = job(1, 100, 0, None);
    wants.constraint = Some("f497".into());
    // No node has the feature yet: refused at submission, as in Slurm.
    assert!(s.submit(wants.clone()).is_err());
    let features = |list: &[&str]| ControlRequest::UpdateNode {
        nodes: vec!["w2".into()],
        state: None,
        reason: None,
        weight: None,
        features: Some(list.iter().map(|f| f.to_string()).collect()),
        active_features: None,
    };
    assert_eq!(
        control(&mut s, 1000, features(&["f497"]))
            .unwrap_err()
            .errno,
        SlurmErrno::UserIdMissing
    );
    control(&mut s, 0, features(&["f497", "g497"])).unwrap();
    assert_eq!(s.state.nodes["w2"].features, ["f497", "g497"]);
    let id = s.submit(wants).expect("submit");
    let plan = s.pass().expect("pass");
    let (started, alloc) = &plan.starts[0];
    assert_eq!((*started, alloc.node_names[0].as_str()), (id, "w2"));
    // As Slurm without a node features plugin: the active features stay unless given, so dropping one needs
    // ActiveFeatures= too.
    assert_eq!(
        control(&mut s, 0, features(&["f497"])).unwrap_err().errno,
        SlurmErrno::ActiveFeatureNotSubset
    );
    let both = |avail: Option<&[&str]>, active: &[&str]| ControlRequest::UpdateNode {
        nodes: vec!["w2".into()],
        state: None,
        reason: None,
        weight: None,
        features: avail.map(|l| l.iter().map(|f| f.to_string()).collect()),
        active_features: Some(active.iter().map(|f| f.to_string()).collect()),
    };
    assert_eq!(
        control(&mut s, 0, both(None, &["z497"])).unwrap_err().errno,
        SlurmErrno::ActiveFeatureNotSubset
    );
    // Active features other than the available ones: Spur's nodes keep one list.
    assert_eq!(
        control(&mut s, 0, both(None, &["f497"])).unwrap_err().errno,
        SlurmErrno::NotSupported
    );
    assert_eq!(s.state.nodes["w2"].features, ["f497", "g497"]);
    control(&mut s, 0, both(Some(&["f497"]), &["f497"])).unwrap();
    assert_eq!(s.state.nodes["w2"].features, ["f497"]);
    control(&mut s, 0, both(Some(&[]), &[])).unwrap();
    assert!(s.state.nodes["w2"].features.is_empty());
}

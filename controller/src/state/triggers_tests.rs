//! Triggers through the state machine: who may clear what, what fires on which transition, that a fired program
//! runs once as the trigger's owner, and that a snapshot from before triggers loads.

use spur_core::model::trigger::{self as trig, TriggerSpec};
use spur_core::wire::api::{ControlRequest, NodeUpdateState, SlurmErrno};

use super::tests::{spec, Harness};
use super::{ClusterState, Command, Effect};

fn node_trigger(kind: u32, program: &str) -> TriggerSpec {
    TriggerSpec {
        res_type: trig::RES_NODE,
        res_id: Some("*".into()),
        trig_type: kind,
        offset: 0,
        flags: 0,
        program: program.into(),
    }
}

fn set(h: &mut Harness, uid: u32, gid: u32, trigger: TriggerSpec) -> Result<(), SlurmErrno> {
    h.control(
        uid,
        ControlRequest::SetTrigger {
            trigger,
            group_id: gid,
            executable: true,
        },
    )
    .map(|_| ())
    .map_err(|e| e.errno)
}

fn update_node(h: &mut Harness, state: NodeUpdateState) {
    h.control(
        0,
        ControlRequest::UpdateNode {
            nodes: vec!["n1".into()],
            state: Some(state),
            reason: Some("test".into()),
            weight: None,
            features: None,
            active_features: None,
        },
    )
    .expect("update node");
}

/// The programs a trigger pass at the harness's clock runs.
fn pass(h: &mut Harness) -> Vec<(u32, u32, String, String)> {
    let now = h.now;
    h.apply(Command::RunTriggers { now })
        .expect("pass")
        .effects
        .into_iter()
        .filter_map(|e| match e {
            Effect::RunTrigger {
                user_id,
                group_id,
                program,
                arg,
                ..
            } => Some((user_id, group_id, program, arg)),
            _ => None,
        })
        .collect()
}

#[test]
fn node_down_and_up_fire_once_with_the_node_and_as_the_owner() {
    let mut h = Harness::new();
    set(&mut h, 1000, 100, node_trigger(trig::DOWN, "/bin/down")).unwrap();
    let mut perm = node_trigger(trig::UP, "/bin/up x");
    perm.flags = trig::FLAG_PERM;
    set(&mut h, 0, 0, perm).unwrap();
    assert!(!h.state.triggers_due(h.now), "nothing happened yet");
    update_node(&mut h, NodeUpdateState::Down);
    assert!(h.state.triggers_due(h.now));
    assert_eq!(
        pass(&mut h),
        [(1000, 100, "/bin/down".to_string(), "n1".to_string())]
    );
    assert!(pass(&mut h).is_empty(), "a trigger runs once");
    // The down trigger is gone, the PERM up trigger waits.
    let listed: Vec<u32> = h
        .state
        .listed_triggers()
        .iter()
        .map(|t| t.trig_id)
        .collect();
    assert_eq!(listed, [2]);
    update_node(&mut h, NodeUpdateState::Resume);
    assert_eq!(
        pass(&mut h),
        [(0, 0, "/bin/up x".to_string(), "n1".to_string())]
    );
    // Re-armed as it was set, and fires again on the next return to service.
    assert_eq!(h.state.listed_triggers().len(), 1);
    update_node(&mut h, NodeUpdateState::Down);
    assert!(pass(&mut h).is_empty());
    update_node(&mut h, NodeUpdateState::Resume);
    assert_eq!(pass(&mut h).len(), 1);
}

#[test]
fn an_offset_delays_the_program() {
    let mut h = Harness::new();
    let mut t = node_trigger(trig::DOWN, "/bin/down");
    t.offset = 30;
    set(&mut h, 0, 0, t).unwrap();
    update_node(&mut h, NodeUpdateState::Down);
    assert!(pass(&mut h).is_empty(), "dated now, due in 30 s");
    h.now += 29;
    assert!(!h.state.triggers_due(h.now));
    h.now += 1;
    assert_eq!(pass(&mut h).len(), 1);
}

#[test]
fn a_jobs_fini_fires_with_its_id_and_a_finished_job_is_refused() {
    let mut h = Harness::new();
    let now = h.now;
    let id = h
        .apply(Command::Submit {
            spec: Box::new(spec("j")),
            now,
        })
        .unwrap()
        .job_id
        .unwrap();
    let fini = TriggerSpec {
        res_type: trig::RES_JOB,
        res_id: Some(id.to_string()),
        trig_type: trig::FINI,
        ..node_trigger(0, "/bin/fini")
    };
    set(&mut h, 1000, 1000, fini.clone()).unwrap();
    assert_eq!(
        set(&mut h, 1000, 1000, fini.clone()),
        Err(SlurmErrno::TriggerDup)
    );
    assert!(pass(&mut h).is_empty(), "the job is pending");
    h.control(
        1000,
        ControlRequest::Cancel {
            job: super::tests::select(id),
        },
    )
    .unwrap();
    assert_eq!(
        pass(&mut h),
        [(1000, 1000, "/bin/fini".to_string(), id.to_string())]
    );
    assert_eq!(set(&mut h, 1000, 1000, fini), Err(SlurmErrno::AlreadyDone));
    let unknown = TriggerSpec {
        res_type: trig::RES_JOB,
        res_id: Some("999".into()),
        trig_type: trig::FINI,
        ..node_trigger(0, "/bin/fini")
    };
    assert_eq!(set(&mut h, 0, 0, unknown), Err(SlurmErrno::InvalidJobId));
}

#[test]
fn a_user_clears_only_their_own_triggers() {
    let mut h = Harness::new();
    set(&mut h, 0, 0, node_trigger(trig::DOWN, "/bin/a")).unwrap();
    set(&mut h, 1000, 1000, node_trigger(trig::DOWN, "/bin/b")).unwrap();
    let clear = |id, user| ControlRequest::ClearTrigger {
        trig_id: id,
        job_id: 0,
        user_id: user,
    };
    let denied = h.control(1000, clear(1, None)).unwrap_err();
    assert_eq!(denied.errno, SlurmErrno::AccessDenied);
    let denied = h.control(1000, clear(0, Some(0))).unwrap_err();
    assert_eq!(denied.errno, SlurmErrno::AccessDenied);
    assert_eq!(
        h.control(1000, clear(7, None)).unwrap_err().errno,
        SlurmErrno::NoSuchProcess
    );
    h.control(1000, clear(2, None)).unwrap();
    assert_eq!(h.state.listed_triggers().len(), 1);
    // Root clears anyone's.
    h.control(0, clear(0, Some(0))).unwrap();
    assert!(h.state.listed_triggers().is_empty());
}

#[test]
fn the_owner_is_the_caller_whatever_the_request_says() {
    // The request carries no owner: a user's trigger always runs as that user, never as root.
    let mut h = Harness::new();
    set(&mut h, 1000, 1000, node_trigger(trig::DOWN, "/bin/x")).unwrap();
    update_node(&mut h, NodeUpdateState::Down);
    let ran = pass(&mut h);
    assert_eq!(ran.len(), 1);
    assert_eq!((ran[0].0, ran[0].1), (1000, 1000));
}

#[test]
fn a_program_the_owner_cannot_run_is_refused_and_uses_up_its_id() {
    let mut h = Harness::new();
    let refused = h
        .control(
            0,
            ControlRequest::SetTrigger {
                trigger: node_trigger(trig::DOWN, "/bin/a"),
                group_id: 0,
                executable: false,
            },
        )
        .unwrap_err();
    assert_eq!(refused.errno, SlurmErrno::AccessDenied);
    set(&mut h, 0, 0, node_trigger(trig::DOWN, "/bin/b")).unwrap();
    assert_eq!(h.state.listed_triggers()[0].trig_id, 2);
}

#[test]
fn a_snapshot_from_before_triggers_loads_without_any() {
    let h = Harness::new();
    let mut json = serde_json::to_value(&h.state).unwrap();
    json.as_object_mut().unwrap().remove("triggers");
    let back: ClusterState = serde_json::from_value(json).unwrap();
    assert!(back.triggers.list.is_empty());
    assert_eq!(back.triggers.next_id, 0);
}

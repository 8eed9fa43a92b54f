//! Event triggers (`strigger`), as slurmctld's trigger manager keeps them: set and cleared by control requests,
//! fired by node transitions seen while a command applies (a node going DOWN, coming back up, becoming DRAINED,
//! the configuration applied again) and by the clock in `RunTriggers` (a job's end or time limit, a node idle
//! long enough). A fired trigger's program is an `Effect::RunTrigger` of the `RunTriggers` entry that finds it
//! due: the leader runs it once, as the trigger's owner; followers and replays drop it.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

use spur_core::model::job::EpochSecs;
use spur_core::model::states::{JobBaseState, NodeBaseState};
use spur_core::model::trigger::{self as trig, TriggerRecord, TriggerSpec};
use spur_core::wire::api::{ApiError, SlurmErrno};

use super::{Applied, ApplyResult, ClusterState, Effect};

/// The layout of [`Triggers`] in snapshots; bump it with a migration when a field changes meaning.
pub const TRIGGERS_VERSION: u32 = 1;

/// The triggers, in the order `strigger --get` lists them. A snapshot from before triggers existed loads as none.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Triggers {
    #[serde(default)]
    pub version: u32,
    /// The id the next trigger gets (0 reads as 1): ids are never reused, as slurmctld's are not.
    #[serde(default)]
    pub next_id: u32,
    #[serde(default)]
    pub list: Vec<Trigger>,
}

/// One trigger: as set, and whether its event has happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trigger {
    pub record: TriggerRecord,
    /// The event happened: the program's last argument, and when it is due (`None`: at the next `RunTriggers`
    /// plus the offset, as slurmctld dates an event by its next trigger pass).
    #[serde(default)]
    pub fired: Option<Fired>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fired {
    pub arg: String,
    #[serde(default)]
    pub due: Option<EpochSecs>,
}

/// What the clock decides for one trigger at a `RunTriggers`.
#[derive(Debug, Clone, PartialEq)]
enum Decision {
    /// Its event happened now; the program is due at `due`.
    Fire { arg: String, due: EpochSecs },
    /// Fired earlier; date it now.
    Date { due: EpochSecs },
    /// Due: run the program (and re-arm a `PERM` trigger).
    Run,
    /// Its job is gone without a `fini` trigger to fire: nothing can fire it any more.
    Drop,
}

/// The node conditions the node events are transitions of.
const MARK_DOWN: u8 = 1;
const MARK_DRAINED: u8 = 2;

/// The nodes' conditions before a command, kept only while a node trigger waits (see [`ClusterState::apply`]).
pub(super) type NodeMarks = BTreeMap<String, u8>;

impl Triggers {
    fn armed(&self) -> impl Iterator<Item = &Trigger> {
        self.list.iter().filter(|t| t.fired.is_none())
    }

    /// Whether a waiting trigger watches node transitions, so `apply` must compare the nodes around a command.
    pub(super) fn watches_nodes(&self) -> bool {
        let events = trig::DOWN | trig::UP | trig::DRAINED | trig::RECONFIG;
        self.armed()
            .any(|t| t.record.res_type == trig::RES_NODE && t.record.trig_type & events != 0)
    }
}

fn marks(state: &ClusterState) -> NodeMarks {
    state
        .nodes
        .values()
        .map(|n| {
            let mut m = 0;
            if n.base_state == NodeBaseState::Down {
                m |= MARK_DOWN;
            }
            // DRAINED: draining with nothing left running or completing there.
            if n.drain
                && n.base_state != NodeBaseState::Down
                && n.alloc_cpus == 0
                && n.alloc_shared_cpus == 0
                && n.epilogs_running == 0
            {
                m |= MARK_DRAINED;
            }
            (n.name.clone(), m)
        })
        .collect()
}

/// A node trigger's nodes: `None` for every node (`*` or none named).
fn trigger_nodes(record: &TriggerRecord) -> Option<BTreeSet<String>> {
    let res = record.res_id.as_deref().filter(|r| !r.starts_with('*'))?;
    Some(
        spur_core::grammar::hostlist::expand(res)
            .unwrap_or_default()
            .into_iter()
            .collect(),
    )
}

/// The nodes of `event` a trigger on `nodes` sees: all of them for an every-node trigger (even none, as
/// slurmctld's idle check fires), else those it names, if any.
fn seen(
    nodes: &Option<BTreeSet<String>>,
    event: &BTreeSet<String>,
    fire_empty: bool,
) -> Option<String> {
    let hit: Vec<&String> = match nodes {
        None if event.is_empty() && !fire_empty => return None,
        None => event.iter().collect(),
        Some(own) => event.intersection(own).collect(),
    };
    if hit.is_empty() && nodes.is_some() {
        return None;
    }
    Some(spur_core::grammar::hostlist::compress(&hit))
}

impl ClusterState {
    /// The nodes' conditions before a command, when a node trigger waits for a transition.
    pub(super) fn node_marks_if_watched(&self) -> Option<NodeMarks> {
        self.triggers.watches_nodes().then(|| marks(self))
    }

    /// Fires the node triggers whose event the command just applied caused (`before`: the nodes' conditions
    /// before it; `reconfigured`: it applied the configuration again).
    pub(super) fn node_events(&mut self, before: &NodeMarks, reconfigured: bool) {
        let after = marks(self);
        let mut down = BTreeSet::new();
        let mut up = BTreeSet::new();
        let mut drained = BTreeSet::new();
        for (name, now) in &after {
            let was = before.get(name).copied().unwrap_or(0);
            if now & MARK_DOWN != 0 && was & MARK_DOWN == 0 {
                down.insert(name.clone());
            }
            if was & MARK_DOWN != 0 && now & MARK_DOWN == 0 {
                up.insert(name.clone());
            }
            if now & MARK_DRAINED != 0 && was & MARK_DRAINED == 0 {
                drained.insert(name.clone());
            }
        }
        for t in self.triggers.list.iter_mut() {
            if t.fired.is_some() || t.record.res_type != trig::RES_NODE {
                continue;
            }
            let kind = t.record.trig_type;
            let nodes = trigger_nodes(&t.record);
            // slurmctld's order of checks: down, drained, (fail, idle), up, reconfig.
            let arg = [
                (trig::DOWN, &down),
                (trig::DRAINED, &drained),
                (trig::UP, &up),
            ]
            .into_iter()
            .filter(|(bit, event)| kind & bit != 0 && !event.is_empty())
            .find_map(|(_, event)| seen(&nodes, event, false))
            .or_else(|| {
                (kind & trig::RECONFIG != 0 && reconfigured).then(|| "reconfig".to_string())
            });
            if let Some(arg) = arg {
                t.fired = Some(Fired { arg, due: None });
            }
        }
    }

    /// `strigger --set` (the server checked the caller may set triggers and whether the program is executable
    /// by them: `executable`).
    pub(super) fn set_trigger(
        &mut self,
        caller_uid: u32,
        group_id: u32,
        spec: TriggerSpec,
        executable: bool,
    ) -> ApplyResult {
        if spec.offset.abs() > trig::MAX_OFFSET {
            return Err(ApiError::new(SlurmErrno::Error));
        }
        if spec.res_type == trig::RES_JOB {
            let job_id: u32 = spec
                .res_id
                .as_deref()
                .and_then(|r| r.parse().ok())
                .unwrap_or(0);
            let job = self
                .jobs
                .get(&job_id)
                .ok_or_else(|| ApiError::new(SlurmErrno::InvalidJobId))?;
            if job.is_finished() {
                return Err(ApiError::new(SlurmErrno::AlreadyDone));
            }
        } else if let Some(res) = spec.res_id.as_deref().filter(|r| !r.starts_with('*')) {
            let names = spur_core::grammar::hostlist::expand(res)
                .map_err(|_| ApiError::new(SlurmErrno::InvalidNodeName))?;
            if names.is_empty() || names.iter().any(|n| !self.nodes.contains_key(n)) {
                return Err(ApiError::new(SlurmErrno::InvalidNodeName));
            }
        }
        let duplicate = self.triggers.list.iter().any(|t| {
            let r = &t.record;
            r.flags == spec.flags
                && r.res_type == spec.res_type
                && r.trig_type == spec.trig_type
                && r.offset == spec.offset
                && r.user_id == caller_uid
                && r.program == spec.program
                && r.res_id == spec.res_id
        });
        if duplicate {
            return Err(ApiError::new(SlurmErrno::TriggerDup));
        }
        // The id is used up even when the program is refused, as slurmctld numbers before it checks.
        let trig_id = self.triggers.next_id.max(1);
        self.triggers.next_id = trig_id.saturating_add(1);
        self.triggers.version = TRIGGERS_VERSION;
        if !executable {
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        self.triggers.list.push(Trigger {
            record: TriggerRecord {
                trig_id,
                res_type: spec.res_type,
                res_id: spec.res_id,
                trig_type: spec.trig_type,
                offset: spec.offset,
                user_id: caller_uid,
                group_id,
                flags: spec.flags,
                program: spec.program,
            },
            fired: None,
        });
        Ok(Applied::default())
    }

    /// `strigger --clear`: the matching triggers the caller owns (root: any). Nothing matching is ESRCH; a
    /// matching trigger of someone else's is `Access/permission denied` unless a later match was cleared, as
    /// slurmctld answers with the last match's outcome.
    pub(super) fn clear_trigger(
        &mut self,
        caller_uid: u32,
        trig_id: u32,
        job_id: u32,
        user_id: Option<u32>,
    ) -> ApplyResult {
        if job_id == 0 && trig_id == 0 && user_id.is_none() {
            return Err(ApiError::new(SlurmErrno::Error));
        }
        let mut outcome = Err(ApiError::new(SlurmErrno::NoSuchProcess));
        let job_res = (job_id != 0).then(|| job_id.to_string());
        self.triggers.list.retain(|t| {
            let r = &t.record;
            let matches = (trig_id == 0 || r.trig_id == trig_id)
                && job_res
                    .as_ref()
                    .is_none_or(|j| r.res_type == trig::RES_JOB && r.res_id.as_ref() == Some(j))
                && user_id.is_none_or(|u| r.user_id == u);
            if !matches {
                return true;
            }
            if r.user_id != caller_uid && caller_uid != 0 {
                outcome = Err(ApiError::new(SlurmErrno::AccessDenied));
                return true;
            }
            outcome = Ok(Applied::default());
            false
        });
        outcome
    }

    /// The triggers `strigger --get` lists: those still waiting for their event.
    pub fn listed_triggers(&self) -> Vec<TriggerRecord> {
        self.triggers.armed().map(|t| t.record.clone()).collect()
    }

    fn decide(&self, now: EpochSecs) -> Vec<(usize, Decision)> {
        let mut out = Vec::new();
        for (at, t) in self.triggers.list.iter().enumerate() {
            let r = &t.record;
            let offset = i64::from(r.offset);
            if let Some(fired) = &t.fired {
                match fired.due {
                    None => out.push((at, Decision::Date { due: now + offset })),
                    Some(due) if due <= now => out.push((at, Decision::Run)),
                    Some(_) => {}
                }
                continue;
            }
            if r.res_type == trig::RES_JOB {
                let job_id: u32 = r
                    .res_id
                    .as_deref()
                    .and_then(|j| j.parse().ok())
                    .unwrap_or(0);
                let arg = job_id.to_string();
                let job = self.jobs.get(&job_id);
                if r.trig_type & trig::FINI != 0 && job.is_none_or(|j| j.is_finished()) {
                    out.push((
                        at,
                        Decision::Fire {
                            arg,
                            due: now + offset,
                        },
                    ));
                    continue;
                }
                let Some(job) = job else {
                    out.push((at, Decision::Drop));
                    continue;
                };
                if r.trig_type & trig::TIME != 0 && job.state != JobBaseState::Pending {
                    let end = if job.is_finished() {
                        job.end_time
                    } else {
                        job.time_limit_min
                            .map(|limit| now + i64::from(limit) * 60 - job.run_secs(now))
                    };
                    if end.is_some_and(|end| end - now <= -offset) {
                        out.push((at, Decision::Fire { arg, due: now }));
                    }
                }
                continue;
            }
            if r.res_type == trig::RES_NODE && r.trig_type & trig::IDLE != 0 {
                let idle: BTreeSet<String> = self
                    .nodes
                    .values()
                    .filter(|n| n.base_state == NodeBaseState::Idle && !n.drain)
                    .filter(|n| n.last_busy_time.unwrap_or(0) <= now - offset)
                    .map(|n| n.name.clone())
                    .collect();
                if let Some(arg) = seen(&trigger_nodes(r), &idle, true) {
                    out.push((at, Decision::Fire { arg, due: now }));
                }
            }
        }
        out
    }

    /// Whether a `RunTriggers` at `now` would change anything: the leader commits one only then.
    pub fn triggers_due(&self, now: EpochSecs) -> bool {
        !self.triggers.list.is_empty() && !self.decide(now).is_empty()
    }

    /// `RunTriggers`: the clock's events fire, fired triggers are dated, and the due ones run in the same pass
    /// (a `PERM` one is armed again as it was set, first in the list as slurmctld puts its copy).
    pub(super) fn run_triggers(&mut self, now: EpochSecs) -> Applied {
        let mut gone = BTreeSet::new();
        for (at, decision) in self.decide(now) {
            let Some(t) = self.triggers.list.get_mut(at) else {
                continue;
            };
            match decision {
                Decision::Fire { arg, due } => {
                    t.fired = Some(Fired {
                        arg,
                        due: Some(due),
                    })
                }
                Decision::Date { due } => {
                    if let Some(f) = t.fired.as_mut() {
                        f.due = Some(due);
                    }
                }
                Decision::Drop => {
                    gone.insert(at);
                }
                // Run below, with those that fired in this pass.
                Decision::Run => {}
            }
        }
        let mut effects = Vec::new();
        let mut rearmed = Vec::new();
        for (at, t) in self.triggers.list.iter_mut().enumerate() {
            let due = t.fired.as_ref().and_then(|f| f.due);
            if due.is_none_or(|d| d > now) {
                continue;
            }
            let arg = t.fired.take().map(|f| f.arg).unwrap_or_default();
            effects.push(Effect::RunTrigger {
                trig_id: t.record.trig_id,
                user_id: t.record.user_id,
                group_id: t.record.group_id,
                program: t.record.program.clone(),
                arg,
            });
            gone.insert(at);
            if t.record.flags & trig::FLAG_PERM != 0 {
                rearmed.push(Trigger {
                    record: t.record.clone(),
                    fired: None,
                });
            }
        }
        let mut at = 0;
        self.triggers.list.retain(|_| {
            at += 1;
            !gone.contains(&(at - 1))
        });
        for t in rearmed.into_iter().rev() {
            self.triggers.list.insert(0, t);
        }
        Applied {
            effects,
            ..Applied::default()
        }
    }
}

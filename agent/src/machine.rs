//! The node state machine: what a node does with each message of its controller, decided once for spurd and for
//! the simulator. A message goes in with a [`NodeView`] of what the node holds (spurd: its spool; the simulator:
//! its simulated jobs), and [`Effect`]s come out, in the order they are to be carried out. Nothing in here
//! touches a process, a socket, a file or the clock: spurd performs the effects with supervisors and the spool
//! (crate::session), the simulator with simulated jobs that end after their declared run time (crate::sim::node).
//! A message handled differently here is therefore handled differently by both (machine_parity.rs).
//!
//! The machine keeps no state of its own: the node's state is what the view shows (spurd's spool, which survives
//! a restart of the agent), so a new session, or a new agent process, decides exactly as the old one would.

use spur_core::model::job::{EpochSecs, JobRecord};
use spur_core::model::step_launch::{NodeStepLaunch, StepAttach};
use spur_core::model::step_usage::StepRef;
use spur_core::wire::agent_proto::{ControllerToAgent, LaunchContext, TerminateReason};
use spur_core::wire::api::SignalScope;

/// What the machine asks of the node's state: read-only questions, answered from the spool by spurd and from the
/// simulated jobs by the simulator.
pub trait NodeView {
    /// The run of the job (its `restarts` at launch) this node holds, running or with a result not yet
    /// acknowledged; `None` when it holds none, or a job of an agent that did not record runs.
    fn run_of(&self, job_id: u32) -> Option<u32>;
    /// The node holds something of the job: a run in progress, or a result not yet acknowledged.
    fn holds(&self, job_id: u32) -> bool;
    /// The job's run here still runs (its supervisor, or its simulated process, is alive).
    fn alive(&self, job_id: u32) -> bool;
    /// The run of the job whose launch waits here for an earlier run to end (crate::runs).
    fn waiting_run(&self, job_id: u32) -> Option<u32>;
}

/// Why a session ends on a controller's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NodeError {
    /// The controller refuses this node (unknown node name, ...): the session ends and is tried again later.
    #[error("controller rejected this node: {0}")]
    Rejected(String),
}

/// One thing the node is to do; carried out in the order [`NodeMachine::handle`] returns them.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// The controller accepted the node's registration.
    Registered { node: String },
    /// Start the job's batch script under its supervisor (a launch already started is not started again).
    StartJob {
        job: Box<JobRecord>,
        context: Box<LaunchContext>,
    },
    /// Start the job's run once the earlier run still ending here is gone (crate::runs).
    StartAfterEarlierRun {
        job: Box<JobRecord>,
        context: Box<LaunchContext>,
    },
    /// Deliver a signal to the job (its batch script, its steps' tasks, or all, as `scope` says).
    Signal {
        job_id: u32,
        signal: i32,
        scope: SignalScope,
        step_pids: Vec<u32>,
    },
    /// Deliver a signal to the tasks of these steps, through their step supervisors here.
    SignalSteps {
        job_id: u32,
        step_ids: Vec<u32>,
        signal: i32,
    },
    /// The run whose launch waits for an earlier run is ended before it started: it only owes its result.
    CancelWaitingRun { job_id: u32, run: u32 },
    /// What the node holds of a run older than `run` is obsolete (its result was committed, the acknowledgement
    /// lost): it goes.
    RetireOlderRun { job_id: u32, run: u32 },
    /// Run `run` never started here while an earlier run still ends: stop that one, then report `run` killed.
    EndAfterEarlierRun {
        job_id: u32,
        run: u32,
        kill_wait_secs: u32,
    },
    /// The job was never launched here: report it killed by SIGKILL, so the controller can free it.
    ReportNeverLaunched { job_id: u32, run: Option<u32> },
    /// End the job's run here (its supervisor honours KillWait).
    Terminate {
        job_id: u32,
        reason: TerminateReason,
        at: EpochSecs,
    },
    /// Start a step's tasks under a step supervisor, after the node's prolog when `job` is given.
    StartStep {
        launch: Box<NodeStepLaunch>,
        job: Option<Box<JobRecord>>,
        context: Option<Box<LaunchContext>>,
    },
    /// Run slurm.conf's Epilog for the ended job, then report it finished.
    RunEpilog {
        job: Box<JobRecord>,
        context: Box<LaunchContext>,
    },
    /// Run slurm.conf's Prolog at the job's allocation, then report how it went.
    RunProlog {
        job: Box<JobRecord>,
        context: Box<LaunchContext>,
        contain: bool,
    },
    /// Write a message into the job's stderr.
    Notify { job_id: u32, message: String },
    /// The controller committed the result of `run`: forget it (a newer run's stays).
    Forget { job_id: u32, run: Option<u32> },
    /// Measure the steps' usage and answer `request_id`.
    MeasureSteps {
        request_id: u64,
        job_id: u32,
        uid: u32,
        steps: Vec<StepRef>,
    },
    /// Hand an `sattach` request to the step's supervisor (or tell the client no task runs here).
    AttachStep(Box<StepAttach>),
    /// Have `spurstepd --bcast` fetch an sbcast file from the client and write it as the job's owner.
    FileBcast(Box<spur_core::model::step_launch::FileBcastOrder>),
}

/// The node's decisions (see the module comment). Constructed by spurd's session and by every simulated node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeMachine {
    _private: (),
}

impl NodeMachine {
    pub fn new() -> Self {
        NodeMachine::default()
    }

    /// What to do with one message of the controller, given what the node holds. `Err` ends the session.
    pub fn handle(
        &self,
        message: ControllerToAgent,
        view: &impl NodeView,
    ) -> Result<Vec<Effect>, NodeError> {
        let effects = match message {
            ControllerToAgent::Welcome { node } => vec![Effect::Registered { node }],
            ControllerToAgent::Rejected { message } => return Err(NodeError::Rejected(message)),
            ControllerToAgent::Launch { job, context } => {
                let context = Box::new(context);
                // Two runs would share the job's directory: the new one waits until the earlier one is gone.
                let earlier = view
                    .run_of(job.job_id)
                    .is_some_and(|held| held < job.restarts);
                if earlier && view.alive(job.job_id) {
                    vec![Effect::StartAfterEarlierRun { job, context }]
                } else {
                    vec![Effect::StartJob { job, context }]
                }
            }
            ControllerToAgent::Signal {
                job_id,
                signal,
                scope,
                step_pids,
                step_ids,
            } => match step_ids.is_empty() {
                true => vec![Effect::Signal {
                    job_id,
                    signal,
                    scope,
                    step_pids,
                }],
                false => vec![Effect::SignalSteps {
                    job_id,
                    step_ids,
                    signal,
                }],
            },
            ControllerToAgent::Terminate {
                job_id,
                reason,
                at,
                kill_wait_secs,
                run,
            } => terminate(view, job_id, reason, at, kill_wait_secs, run),
            ControllerToAgent::FinishedAck { job_id, run } => vec![Effect::Forget { job_id, run }],
            ControllerToAgent::LaunchStep {
                launch,
                job,
                context,
            } => vec![Effect::StartStep {
                launch,
                job,
                context: context.map(Box::new),
            }],
            ControllerToAgent::RunEpilog { job, context } => vec![Effect::RunEpilog {
                job,
                context: Box::new(context),
            }],
            ControllerToAgent::RunProlog {
                job,
                context,
                contain,
            } => vec![Effect::RunProlog {
                job,
                context: Box::new(context),
                contain,
            }],
            ControllerToAgent::Notify { job_id, message } => {
                vec![Effect::Notify { job_id, message }]
            }
            ControllerToAgent::MeasureSteps {
                request_id,
                job_id,
                uid,
                steps,
            } => vec![Effect::MeasureSteps {
                request_id,
                job_id,
                uid,
                steps,
            }],
            ControllerToAgent::AttachStep(order) => vec![Effect::AttachStep(order)],
            ControllerToAgent::FileBcast(order) => vec![Effect::FileBcast(order)],
        };
        Ok(effects)
    }
}

/// The controller ends run `run` of the job (`None`: whatever run is here).
fn terminate(
    view: &impl NodeView,
    job_id: u32,
    reason: TerminateReason,
    at: EpochSecs,
    kill_wait_secs: u32,
    run: Option<u32>,
) -> Vec<Effect> {
    let mut effects = Vec::new();
    let mut holds = view.holds(job_id);
    if let Some(run) = run {
        if view.waiting_run(job_id) == Some(run) {
            // That run never started: it ends once the earlier run is gone (crate::runs).
            return vec![Effect::CancelWaitingRun { job_id, run }];
        }
        match view.run_of(job_id) {
            // A terminate of a run this node has since replaced: nothing of it is left here.
            Some(held) if held > run => return effects,
            Some(held) if held < run => {
                if view.alive(job_id) {
                    return vec![Effect::EndAfterEarlierRun {
                        job_id,
                        run,
                        kill_wait_secs,
                    }];
                }
                // The earlier run's result was committed; without it the node holds nothing of the job.
                effects.push(Effect::RetireOlderRun { job_id, run });
                holds = false;
            }
            _ => {}
        }
    }
    if holds {
        effects.push(Effect::Terminate { job_id, reason, at });
    } else {
        // Never launched here: nothing to kill, but the controller waits for a result to free the job.
        effects.push(Effect::ReportNeverLaunched { job_id, run });
    }
    effects
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A node as the machine sees it: job id to (run held, alive), and launches waiting for an earlier run.
    #[derive(Default)]
    struct Node {
        held: BTreeMap<u32, (Option<u32>, bool)>,
        waiting: BTreeMap<u32, u32>,
    }

    impl NodeView for Node {
        fn run_of(&self, job_id: u32) -> Option<u32> {
            self.held.get(&job_id).and_then(|h| h.0)
        }
        fn holds(&self, job_id: u32) -> bool {
            self.held.contains_key(&job_id)
        }
        fn alive(&self, job_id: u32) -> bool {
            self.held.get(&job_id).is_some_and(|h| h.1)
        }
        fn waiting_run(&self, job_id: u32) -> Option<u32> {
            self.waiting.get(&job_id).copied()
        }
    }

    fn terminate(run: Option<u32>) -> ControllerToAgent {
        ControllerToAgent::Terminate {
            job_id: 4,
            reason: TerminateReason::NodeFail,
            at: 9,
            kill_wait_secs: 30,
            run,
        }
    }

    fn kind(effects: &[Effect]) -> Vec<&'static str> {
        effects
            .iter()
            .map(|e| match e {
                Effect::StartJob { .. } => "start",
                Effect::StartAfterEarlierRun { .. } => "start after",
                Effect::CancelWaitingRun { .. } => "cancel waiting",
                Effect::RetireOlderRun { .. } => "retire",
                Effect::EndAfterEarlierRun { .. } => "end after",
                Effect::ReportNeverLaunched { .. } => "never launched",
                Effect::Terminate { .. } => "terminate",
                _ => "other",
            })
            .collect()
    }

    #[test]
    fn a_new_run_waits_for_a_live_earlier_run_only() {
        let machine = NodeMachine::new();
        let mut job = JobRecord::pending(4, Default::default(), "p".into(), 0, 0);
        job.restarts = 2;
        let launch = ControllerToAgent::Launch {
            job: Box::new(job),
            context: LaunchContext::default(),
        };
        let mut node = Node::default();
        node.held.insert(4, (Some(1), true));
        let effects = machine.handle(launch.clone(), &node).unwrap();
        assert_eq!(kind(&effects), ["start after"]);
        node.held.insert(4, (Some(1), false));
        assert_eq!(
            kind(&machine.handle(launch.clone(), &node).unwrap()),
            ["start"]
        );
        // The same run again (a resent launch) is left to the launch's own idempotence.
        node.held.insert(4, (Some(2), true));
        assert_eq!(kind(&machine.handle(launch, &node).unwrap()), ["start"]);
    }

    #[test]
    fn a_terminate_ends_what_the_node_holds_of_the_run_it_names() {
        let machine = NodeMachine::new();
        let decide = |node: &Node, run| kind(&machine.handle(terminate(run), node).unwrap());
        let mut node = Node::default();
        assert_eq!(decide(&node, Some(1)), ["never launched"]);
        assert_eq!(decide(&node, None), ["never launched"]);
        node.held.insert(4, (Some(1), true));
        assert_eq!(decide(&node, Some(1)), ["terminate"]);
        assert_eq!(decide(&node, None), ["terminate"]);
        assert!(decide(&node, Some(0)).is_empty(), "a run replaced since");
        assert_eq!(decide(&node, Some(2)), ["end after"]);
        node.waiting.insert(4, 2);
        assert_eq!(decide(&node, Some(2)), ["cancel waiting"]);
        node.waiting.clear();
        node.held.insert(4, (Some(1), false));
        assert_eq!(decide(&node, Some(2)), ["retire", "never launched"]);
        // A directory without a run (an older agent's) is ended whatever run is named.
        node.held.insert(4, (None, true));
        assert_eq!(decide(&node, Some(2)), ["terminate"]);
    }

    #[test]
    fn a_rejection_ends_the_session_and_signals_go_where_they_are_aimed() {
        let machine = NodeMachine::new();
        let node = Node::default();
        let rejected = ControllerToAgent::Rejected {
            message: "no such node".into(),
        };
        let refused = machine.handle(rejected, &node).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "controller rejected this node: no such node"
        );
        let signal = |step_ids: Vec<u32>| ControllerToAgent::Signal {
            job_id: 4,
            signal: 10,
            scope: SignalScope::Steps,
            step_pids: vec![77],
            step_ids,
        };
        assert!(matches!(
            machine.handle(signal(Vec::new()), &node).unwrap()[..],
            [Effect::Signal { .. }]
        ));
        assert!(matches!(
            machine.handle(signal(vec![1]), &node).unwrap()[..],
            [Effect::SignalSteps { .. }]
        ));
    }
}

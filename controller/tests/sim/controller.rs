//! The simulated controller: the real [`ClusterState`] behind a committed command log, driven as the runtime
//! drives it (`runtime.rs`: commit, perform effects, scheduling passes, time limits, liveness, purge), with
//! crashes that rebuild the state from the log, or from a snapshot made with the real snapshot codec plus the
//! log's tail.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use spur_controller::history::sqlite::SqliteHistory;
use spur_controller::history::HistoryLink;

use spur_controller::raft::AppStateMachine;
use spur_controller::runtime::expired_jobs;
use spur_controller::scheduler::{schedule, Plan};
use spur_controller::state::{Applied, ClusterState, Command, ConfigSnapshot, Effect};
use spur_core::model::job::EpochSecs;
use spur_core::wire::api::ApiError;

use super::agent::ToAgent;
use super::net::Millis;

pub struct Controller {
    pub state: ClusterState,
    /// Every committed command, in order: entry `i` was applied with log index `i + 1`.
    log: Vec<Command>,
    /// The latest snapshot (real codec) and how many log entries it covers.
    snapshot: Option<(Vec<u8>, usize)>,
    config: ConfigSnapshot,
    pub up: bool,
    pub incarnation: u64,
    /// Nodes (by index) with a live session to this incarnation.
    pub connected: BTreeSet<usize>,
    last_seen: BTreeMap<usize, Millis>,
    /// The controller's job history store (its SQLite file survives crashes, as a disk does), and its folder.
    history: HistoryLink,
    _history_dir: tempfile::TempDir,
    pub node_index: BTreeMap<String, usize>,
    schedule_wanted: bool,
    pub commits: u64,
}

/// How a recovery rebuilt the state.
#[derive(Debug, Clone, Copy)]
pub enum Recovery {
    FullReplay,
    SnapshotAndTail,
}

impl Controller {
    pub fn new(config: ConfigSnapshot) -> Self {
        let node_index = config
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), i))
            .collect();
        let history_dir = match tempfile::tempdir() {
            Ok(dir) => dir,
            Err(e) => panic!("cannot make a folder for the history store: {e}"),
        };
        let history = match SqliteHistory::open(&history_dir.path().join("history.sqlite")) {
            Ok(store) => HistoryLink::new(Arc::new(store)),
            Err(e) => panic!("cannot open the history store: {e}"),
        };
        let mut state = ClusterState::new();
        state.history = history.clone();
        Controller {
            history,
            _history_dir: history_dir,
            state,
            log: Vec::new(),
            snapshot: None,
            config,
            up: true,
            incarnation: 1,
            connected: BTreeSet::new(),
            last_seen: BTreeMap::new(),
            node_index,
            schedule_wanted: true,
            commits: 0,
        }
    }

    /// Commits one command and returns what applying it said, with the effects to perform.
    pub fn commit(&mut self, command: Command) -> Result<Applied, ApiError> {
        assert!(self.up, "commit on a crashed controller");
        self.schedule_wanted |= command.may_change_schedule();
        self.log.push(command.clone());
        self.commits += 1;
        let index = u64::try_from(self.log.len()).unwrap_or(u64::MAX);
        let result = self.state.apply(index, command);
        // Each commit is a batch of its own, as the raft layer applies them.
        AppStateMachine::batch_applied(&mut self.state);
        if let Err(e) = self.state.check_invariants() {
            panic!(
                "state invariant broken after log index {index}: {e}\n{:?}",
                self.log.last()
            );
        }
        result
    }

    /// The messages the effects turn into, for connected nodes only (as `Controller::send` drops the rest: the
    /// node's next registration reconciles them).
    pub fn messages(&self, effects: &[Effect]) -> Vec<(usize, ToAgent)> {
        let mut out = Vec::new();
        for effect in effects {
            let (node, message) = match effect {
                Effect::Launch { node, job_id } => match self.state.jobs.get(job_id) {
                    Some(job) => (
                        node,
                        ToAgent::Launch {
                            job: Box::new(job.clone()),
                        },
                    ),
                    None => continue,
                },
                // As the runtime: the terminate names the job's current run.
                Effect::Terminate {
                    node, job_id, run, ..
                } => (
                    node,
                    ToAgent::Terminate {
                        job_id: *job_id,
                        run: run.or(self.state.jobs.get(job_id).map(|j| j.restarts)),
                    },
                ),
                Effect::AckFinished { node, job_id, run } => (
                    node,
                    ToAgent::FinishedAck {
                        job_id: *job_id,
                        run: *run,
                    },
                ),
                Effect::NodeEpilog { node, job } => {
                    (node, ToAgent::RunEpilog { job_id: job.job_id })
                }
                // The simulated agents run no steps, allocation prologs or notices; trigger programs run on the
                // controller, not on agents.
                Effect::Signal { .. }
                | Effect::SignalStepTasks { .. }
                | Effect::LaunchStep { .. }
                | Effect::AllocProlog { .. }
                | Effect::Notify { .. }
                | Effect::RunTrigger { .. } => continue,
            };
            if let Some(&i) = self.node_index.get(node) {
                if self.connected.contains(&i) {
                    out.push((i, message));
                }
            }
        }
        out
    }

    /// Starts (or restarts) serving: the configuration is committed again, as `spurctld` does on every start.
    pub fn start(&mut self, now: Millis) -> Result<Applied, ApiError> {
        self.up = true;
        // A new leader gives every node a fresh SlurmdTimeout of grace.
        for &i in self.node_index.values() {
            self.last_seen.insert(i, now);
        }
        self.schedule_wanted = true;
        self.commit(Command::ApplyConfig(Box::new(self.config.clone())))
    }

    pub fn take_snapshot(&mut self) {
        let bytes = match AppStateMachine::snapshot(&self.state) {
            Ok(bytes) => bytes,
            Err(e) => panic!("snapshot failed: {e}"),
        };
        self.snapshot = Some((bytes, self.log.len()));
    }

    pub fn crash(&mut self) {
        self.up = false;
        self.connected.clear();
        self.incarnation += 1;
    }

    /// Rebuilds the state as a restarted controller does, and checks it equals the state before the crash byte
    /// for byte (in the snapshot encoding).
    /// Answers whether a snapshot was used.
    pub fn recover(&mut self, how: Recovery) -> bool {
        let before = encode(&self.state);
        let mut rebuilt = ClusterState::new();
        rebuilt.history = self.history.clone();
        let from = match (how, &self.snapshot) {
            (Recovery::SnapshotAndTail, Some((bytes, covered))) => {
                if let Err(e) = AppStateMachine::restore(&mut rebuilt, bytes) {
                    panic!("snapshot restore failed: {e}");
                }
                *covered
            }
            _ => 0,
        };
        for (i, command) in self.log.iter().enumerate().skip(from) {
            let index = u64::try_from(i + 1).unwrap_or(u64::MAX);
            // Replays drop results and effects, as followers do.
            let _ = rebuilt.apply(index, command.clone());
            AppStateMachine::batch_applied(&mut rebuilt);
        }
        let after = encode(&rebuilt);
        if before != after {
            panic!(
                "{how:?} rebuilt a different state:\nbefore: {}\nafter:  {}",
                first_difference(&before, &after).0,
                first_difference(&before, &after).1
            );
        }
        self.state = rebuilt;
        from > 0
    }

    pub fn seen(&mut self, node: usize, now: Millis) {
        self.last_seen.insert(node, now);
    }

    /// Nodes silent past SlurmdTimeout, without a session: `check_liveness`.
    pub fn silent_nodes(&self, now: Millis) -> Vec<String> {
        let timeout_ms = u64::from(self.state.settings.node_timeout_secs) * 1000;
        self.state
            .nodes
            .values()
            .filter(|n| !n.not_responding)
            .filter_map(|n| self.node_index.get(&n.name).map(|&i| (n, i)))
            .filter(|&(_, i)| {
                !self.connected.contains(&i)
                    && now.saturating_sub(self.last_seen.get(&i).copied().unwrap_or(0)) > timeout_ms
            })
            .map(|(n, _)| n.name.clone())
            .collect()
    }

    pub fn expired(&self, now: EpochSecs) -> Vec<u32> {
        expired_jobs(&self.state, now)
    }

    /// Finished jobs old enough to purge (what `run_housekeeping` looks for).
    pub fn purge_due(&self, now: EpochSecs) -> bool {
        let age = i64::from(self.state.settings.min_job_age_secs);
        self.state
            .jobs
            .values()
            .any(|j| j.is_finished() && !j.completing && j.end_time.is_some_and(|e| now - e >= age))
    }

    /// A scheduling pass if one is wanted or `forced` (the periodic pass); the plan before it is committed.
    pub fn plan(&mut self, now: EpochSecs, forced: bool) -> Option<Plan> {
        if !(self.schedule_wanted || forced) {
            return None;
        }
        self.schedule_wanted = false;
        Some(schedule(&self.state, now))
    }
}

pub fn encode(state: &ClusterState) -> Vec<u8> {
    match AppStateMachine::snapshot(state) {
        Ok(bytes) => bytes,
        Err(e) => panic!("snapshot failed: {e}"),
    }
}

/// The two encodings around their first differing byte, for a readable failure.
fn first_difference(a: &[u8], b: &[u8]) -> (String, String) {
    let at = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let window = |s: &[u8]| {
        let lo = at.saturating_sub(200);
        let hi = (at + 200).min(s.len());
        String::from_utf8_lossy(&s[lo..hi]).into_owned()
    };
    (window(a), window(b))
}

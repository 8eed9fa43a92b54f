//! `sstat`: the leader asks the agents of a step's nodes to measure it and gathers their answers. The answers are
//! not state: nothing goes through the log, and a node that does not answer in time is left out.

use std::collections::HashMap;
use std::time::Duration;

use tokio::sync::mpsc;

use spur_core::model::step_usage::{NodeUsage, StepRef, StepUsage};
use spur_core::wire::agent_proto::ControllerToAgent;

use super::Controller;
use crate::raft::PeerError;

/// How long the nodes have to answer (Slurm's sstat waits about as long for its slurmds).
const MEASURE_WAIT: Duration = Duration::from_secs(3);
/// The peer call a follower makes to have the leader (which has the agents' sessions) measure steps.
pub const KIND_MEASURE: &str = "usage.measure";

/// What a follower asks the leader to measure.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct MeasureRequest {
    pub job_id: u32,
    pub uid: u32,
    pub plan: Vec<(StepRef, Vec<String>)>,
}

/// One node's answer to a measurement.
pub type NodeAnswer = Vec<(StepRef, NodeUsage)>;

/// Measurements waiting for their nodes' answers, by request id.
#[derive(Default)]
pub struct UsageWaiters {
    next_id: std::sync::atomic::AtomicU64,
    waiting: std::sync::Mutex<HashMap<u64, mpsc::UnboundedSender<NodeAnswer>>>,
}

impl Controller {
    /// Measures `plan`'s steps here when this controller leads, else through the leader.
    pub async fn measure_steps_anywhere(
        &self,
        job_id: u32,
        uid: u32,
        plan: Vec<(StepRef, Vec<String>)>,
    ) -> Result<Vec<StepUsage>, String> {
        if self.is_leader() {
            return Ok(self.measure_steps(job_id, uid, &plan).await);
        }
        let (Some(peers), Some((_, addr))) = (self.peers(), self.state.leader()) else {
            return Err("no controller leads the cluster".to_string());
        };
        let request = MeasureRequest { job_id, uid, plan };
        let reply: Result<Vec<StepUsage>, PeerError> = peers
            .call(&addr, KIND_MEASURE, &request, MEASURE_WAIT * 2)
            .await;
        reply.map_err(|e| format!("the leading controller did not answer: {e}"))
    }

    /// Measures `plan`'s steps (each with its nodes) of job `job_id`, owned by `uid`, on their nodes now.
    pub async fn measure_steps(
        &self,
        job_id: u32,
        uid: u32,
        plan: &[(StepRef, Vec<String>)],
    ) -> Vec<StepUsage> {
        let mut per_node: Vec<(String, Vec<StepRef>)> = Vec::new();
        for (step, nodes) in plan {
            for node in nodes {
                match per_node.iter_mut().find(|(n, _)| n == node) {
                    Some((_, steps)) => steps.push(*step),
                    None => per_node.push((node.clone(), vec![*step])),
                }
            }
        }
        let request_id = self
            .usage
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (answers, mut inbox) = mpsc::unbounded_channel();
        if let Ok(mut waiting) = self.usage.waiting.lock() {
            waiting.insert(request_id, answers);
        }
        let mut asked = 0;
        {
            let agents = self.agents.lock().await;
            for (node, steps) in per_node {
                let Some(agent) = agents.get(&node) else {
                    continue;
                };
                let message = ControllerToAgent::MeasureSteps {
                    request_id,
                    job_id,
                    uid,
                    steps,
                };
                if agent.sender.try_send(message).is_ok() {
                    asked += 1;
                }
            }
        }
        let mut gathered: Vec<NodeAnswer> = Vec::new();
        let deadline = tokio::time::Instant::now() + MEASURE_WAIT;
        while gathered.len() < asked {
            match tokio::time::timeout_at(deadline, inbox.recv()).await {
                Ok(Some(answer)) => gathered.push(answer),
                Ok(None) | Err(_) => break,
            }
        }
        if let Ok(mut waiting) = self.usage.waiting.lock() {
            waiting.remove(&request_id);
        }
        assemble(job_id, plan, gathered)
    }

    /// An agent's answer to a measurement (late answers are dropped).
    pub fn deliver_usage(&self, request_id: u64, answer: NodeAnswer) {
        let sender = self
            .usage
            .waiting
            .lock()
            .ok()
            .and_then(|waiting| waiting.get(&request_id).cloned());
        if let Some(sender) = sender {
            let _ = sender.send(answer);
        }
    }
}

/// The steps of `plan` in its order, each with its nodes' usage in the order of the step's nodes.
fn assemble(
    job_id: u32,
    plan: &[(StepRef, Vec<String>)],
    answers: Vec<NodeAnswer>,
) -> Vec<StepUsage> {
    let mut by_step: HashMap<StepRef, Vec<NodeUsage>> = HashMap::new();
    for (step, usage) in answers.into_iter().flatten() {
        by_step.entry(step).or_default().push(usage);
    }
    plan.iter()
        .map(|(step, nodes)| {
            let mut usage = by_step.remove(step).unwrap_or_default();
            usage.sort_by_key(|u| nodes.iter().position(|n| *n == u.node));
            StepUsage {
                job_id,
                step: *step,
                nodes: usage,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_ordered_by_the_steps_nodes() {
        let node = |name: &str| NodeUsage {
            node: name.into(),
            pids: vec![1],
            tasks: Vec::new(),
        };
        let plan = vec![
            (StepRef::Batch, vec!["n1".to_string()]),
            (StepRef::Numbered(0), vec!["n1".into(), "n2".into()]),
        ];
        let answers = vec![
            vec![(StepRef::Numbered(0), node("n2"))],
            vec![
                (StepRef::Batch, node("n1")),
                (StepRef::Numbered(0), node("n1")),
            ],
        ];
        let steps = assemble(7, &plan, answers);
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[0].id_text(), "7.batch");
        let order: Vec<&str> = steps[1].nodes.iter().map(|n| n.node.as_str()).collect();
        assert_eq!(order, ["n1", "n2"]);
    }
}

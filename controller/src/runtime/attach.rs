//! Requests a client makes of a job's nodes through the controllers, which alone hold the agents' sessions:
//! `sattach` (each node of a running step connects to the attaching client) and `sbcast` (each node of a running
//! job connects to sbcast and writes the file it sends). The leader hands each node's agent its order. Nothing
//! here is state: the orders go through no log, and a node that cannot be reached simply never calls (the client
//! reports it).

use std::time::Duration;

use spur_core::model::step_launch::StepAttach;
use spur_core::wire::agent_proto::ControllerToAgent;

use super::Controller;
use crate::raft::PeerError;

/// The peer call a follower of an older build makes to have the leader pass an attach on to the nodes.
pub const KIND_ATTACH: &str = "step.attach";
/// The peer call a follower makes to have the leader pass orders on to the nodes.
pub const KIND_NODE_ORDERS: &str = "node.orders";
/// How long a follower waits for the leader to take the request.
const FORWARD_WAIT: Duration = Duration::from_secs(5);
/// How long the leader holds a node's order while the node has no session, as just after a leader change when
/// agents are still moving over; shorter than the follower's wait and the clients' wait for the nodes.
const SESSION_WAIT: Duration = Duration::from_secs(3);

/// One attach request per node of the step, each for its agent (the peer call of older builds).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct AttachRequest {
    pub nodes: Vec<(String, StepAttach)>,
}

/// One order per node, each for its agent.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct NodeOrders {
    pub orders: Vec<(String, ControllerToAgent)>,
}

impl From<AttachRequest> for NodeOrders {
    fn from(request: AttachRequest) -> NodeOrders {
        NodeOrders {
            orders: request
                .nodes
                .into_iter()
                .map(|(node, attach)| (node, ControllerToAgent::AttachStep(Box::new(attach))))
                .collect(),
        }
    }
}

impl Controller {
    /// Sends the orders from here when this controller leads, else through the leader.
    pub async fn deliver_anywhere(&self, orders: NodeOrders) -> Result<(), String> {
        if self.is_leader() {
            self.deliver(orders).await;
            return Ok(());
        }
        let (Some(peers), Some((_, addr))) = (self.peers(), self.state.leader()) else {
            return Err("no controller leads the cluster".to_string());
        };
        let reply: Result<(), PeerError> = peers
            .call(&addr, KIND_NODE_ORDERS, &orders, FORWARD_WAIT)
            .await;
        reply.map_err(|e| format!("the leading controller did not answer: {e}"))
    }

    /// Hands each node's agent its order, waiting a little for a node whose session is not (yet) open; a node
    /// still without one is left to the client's wait.
    pub async fn deliver(&self, orders: NodeOrders) {
        let deadline = tokio::time::Instant::now() + SESSION_WAIT;
        for (node, order) in orders.orders {
            while !self.agent_connected(&node).await && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            self.send(&node, order).await;
        }
    }
}

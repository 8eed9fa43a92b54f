//! The tokio layer of the simulated nodes: one lightweight task per node, each with its own `AgentLink.Session`
//! stream exactly as a real agent opens it (Hello with a credential of its own, then reports and heartbeats), so
//! the controller cannot tell them from real nodes. Sessions share HTTP/2 connections,
//! [`SESSIONS_PER_CONNECTION`] streams each, so 10,000 nodes need about 160 sockets rather than 10,000, and a
//! node costs a task, a stream and a small state: no thread, no timer wheel of its own, no file.
//!
//! What keeps 10,000 nodes from swamping the controller: at most [`REGISTRATIONS_IN_FLIGHT_MAX`] Hellos wait for
//! their Welcome at once, heartbeats are spread evenly over [`HEARTBEAT_INTERVAL`] by node index, and reconnects
//! back off with jitter.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, Mutex, Semaphore};
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::Channel;

use spur_core::wire::agent_proto::{AgentToController, ControllerToAgent, NodeHello};
use spur_core::wire::{from_doc, pb};

use super::node::{Millis, SimNode};
use crate::error::SessionError;
use crate::session::{
    envelope, HEARTBEAT_INTERVAL, RECONNECT_BACKOFF_MAX, SESSION_CONNECT_TIMEOUT,
};

/// Node sessions multiplexed on one HTTP/2 connection (well under hyper's default of 200 concurrent streams).
pub const SESSIONS_PER_CONNECTION: usize = 64;
/// Hellos awaiting the controller's answer at once: registration is a commit each, so a herd of 10,000 is
/// metered rather than queued inside the controller.
pub const REGISTRATIONS_IN_FLIGHT_MAX: usize = 256;
/// Messages a node session queues towards the controller.
const OUTBOX_MAX: usize = 64;

/// Everything the simulated nodes share.
pub struct Fleet {
    pub controller_urls: Vec<String>,
    pub auth: spur_auth::ClientAuth,
    pub hellos: Vec<NodeHello>,
    /// Run time of jobs that declare none (`None`: until their time limit).
    pub default_runtime: Option<Duration>,
}

struct Shared {
    fleet: Fleet,
    connections: Connections,
    registering: Semaphore,
    registered: AtomicUsize,
    started: Instant,
}

/// Runs every simulated node until the process ends.
pub async fn run_fleet(fleet: Fleet) {
    let count = fleet.hellos.len();
    let slots = count.div_ceil(SESSIONS_PER_CONNECTION).max(1);
    let shared = Arc::new(Shared {
        connections: Connections::new(fleet.controller_urls.clone(), fleet.auth.clone(), slots),
        fleet,
        registering: Semaphore::new(REGISTRATIONS_IN_FLIGHT_MAX),
        registered: AtomicUsize::new(0),
        started: Instant::now(),
    });
    tracing::info!(
        nodes = count,
        connections = slots,
        "simulating nodes: jobs run for SPUR_SIM_RUNTIME seconds, nothing is executed"
    );
    let mut tasks = tokio::task::JoinSet::new();
    for index in 0..count {
        tasks.spawn(run_node(shared.clone(), index));
    }
    while tasks.join_next().await.is_some() {}
}

async fn run_node(shared: Arc<Shared>, index: usize) {
    let Some(hello) = shared.fleet.hellos.get(index) else {
        return;
    };
    let mut node = SimNode::new(shared.fleet.default_runtime);
    let slot = index / SESSIONS_PER_CONNECTION;
    let mut backoff = Duration::from_millis(100);
    let mut ever_welcomed = false;
    loop {
        let started = Instant::now();
        let mut session = NodeSession {
            shared: &shared,
            index,
            node: &mut node,
            welcomed: false,
        };
        let ended = session.run(hello, slot).await;
        ever_welcomed |= session.welcomed;
        match ended {
            Ok(()) => tracing::debug!(node = hello.name, "controller closed the session"),
            Err(e) => {
                // One line per connection rather than one per node of it.
                if index.is_multiple_of(SESSIONS_PER_CONNECTION) || ever_welcomed {
                    tracing::warn!(node = hello.name, "session ended: {e}");
                }
                shared.connections.failed(slot).await;
            }
        }
        if started.elapsed() > Duration::from_secs(10) {
            backoff = Duration::from_millis(100);
        }
        // Jitter by node index, so a restarted controller is not met by every node in the same millisecond.
        let jitter = Duration::from_millis((index % 97) as u64 * 10);
        tokio::time::sleep(backoff + jitter).await;
        backoff = (backoff * 2).min(RECONNECT_BACKOFF_MAX);
    }
}

struct NodeSession<'a> {
    shared: &'a Shared,
    index: usize,
    node: &'a mut SimNode,
    welcomed: bool,
}

impl NodeSession<'_> {
    async fn run(&mut self, hello: &NodeHello, slot: usize) -> Result<(), SessionError> {
        let shared = self.shared;
        let channel = shared.connections.get(slot).await?;
        let mut client = pb::agent_link_client::AgentLinkClient::new(channel)
            .max_decoding_message_size(spur_core::wire::MAX_REPLY_BYTES);
        let (outbox, outbox_rx) = mpsc::channel::<pb::ApiRequest>(OUTBOX_MAX);
        self.node.reconnected();
        let mut hello = hello.clone();
        hello.running_jobs = self.node.running_jobs();
        hello.running_runs = self.node.running_runs();
        let memory_mb = hello.real_memory_mb;
        let hello = envelope(&AgentToController::Hello(Box::new(hello)))?;
        let permit = shared.registering.acquire().await?;
        let credential = shared.fleet.auth.seal("Session", &hello)?;
        outbox.send(hello).await?;
        let mut request = tonic::Request::new(ReceiverStream::new(outbox_rx));
        if let Some((key, value)) = credential {
            request.metadata_mut().insert(key, value);
        }
        let mut inbound = client.session(request).await?.into_inner();
        let mut permit = Some(permit);
        let mut next_heartbeat = now_ms() + self.heartbeat_offset_ms();
        loop {
            let due = self
                .node
                .next_due()
                .map_or(next_heartbeat, |t| t.min(next_heartbeat));
            let wait = Duration::from_millis(due.saturating_sub(now_ms()));
            tokio::select! {
                message = inbound.message() => {
                    let Some(reply) = message? else { return Ok(()) };
                    let message: ControllerToAgent = from_doc(reply.body.as_ref())?;
                    if matches!(message, ControllerToAgent::Welcome { .. }) {
                        self.welcomed(&mut permit);
                    }
                    self.node.handle(message, now_ms())?;
                }
                _ = tokio::time::sleep(wait) => {}
            }
            let now = now_ms();
            for report in self.node.poll(now) {
                outbox.send(envelope(&report)?).await?;
            }
            if now >= next_heartbeat {
                next_heartbeat = now + millis(HEARTBEAT_INTERVAL);
                let beat = AgentToController::Heartbeat {
                    free_mem_mb: Some(memory_mb),
                    cpu_load: Some(f64::from(self.node.busy_cpus())),
                };
                outbox.send(envelope(&beat)?).await?;
            }
        }
    }

    fn welcomed(&mut self, permit: &mut Option<tokio::sync::SemaphorePermit<'_>>) {
        permit.take();
        if self.welcomed {
            return;
        }
        self.welcomed = true;
        let total = self.shared.fleet.hellos.len();
        let done = self.shared.registered.fetch_add(1, Ordering::Relaxed) + 1;
        if done == total {
            tracing::info!(
                nodes = total,
                "every simulated node registered ({:.1} s after start)",
                self.shared.started.elapsed().as_secs_f64()
            );
        }
    }

    /// Spreads the nodes' heartbeats evenly over one interval.
    fn heartbeat_offset_ms(&self) -> Millis {
        heartbeat_offset_ms(self.index, self.shared.fleet.hellos.len())
    }
}

/// Node `index` of `count` beats this far into each interval.
pub fn heartbeat_offset_ms(index: usize, count: usize) -> Millis {
    let interval = u128::from(millis(HEARTBEAT_INTERVAL));
    let offset = interval * index as u128 / count.max(1) as u128;
    u64::try_from(offset).unwrap_or(0)
}

/// One lazily opened channel per group of nodes; a failed one is reopened, to the next controller, by the first
/// node that needs it after the failure.
struct Connections {
    urls: Vec<String>,
    auth: spur_auth::ClientAuth,
    slots: Vec<Mutex<Slot>>,
}

#[derive(Default)]
struct Slot {
    channel: Option<Channel>,
    url: usize,
}

impl Connections {
    fn new(urls: Vec<String>, auth: spur_auth::ClientAuth, count: usize) -> Self {
        Connections {
            urls,
            auth,
            slots: (0..count).map(|_| Mutex::new(Slot::default())).collect(),
        }
    }

    async fn get(&self, slot: usize) -> Result<Channel, SessionError> {
        let Some(cell) = self.slots.get(slot) else {
            return Err(SessionError::NoSlot(slot));
        };
        let mut cell = cell.lock().await;
        if let Some(channel) = &cell.channel {
            return Ok(channel.clone());
        }
        let Some(url) = self.urls.get(cell.url % self.urls.len().max(1)) else {
            return Err(SessionError::NoController);
        };
        let channel = self
            .auth
            .channel(url, SESSION_CONNECT_TIMEOUT, None)
            .await?;
        cell.channel = Some(channel.clone());
        Ok(channel)
    }

    /// The next node of the group opens a new connection, to the next controller (the leader may have moved).
    async fn failed(&self, slot: usize) {
        if let Some(cell) = self.slots.get(slot) {
            let mut cell = cell.lock().await;
            if cell.channel.take().is_some() {
                cell.url = cell.url.wrapping_add(1);
            }
        }
    }
}

fn now_ms() -> Millis {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heartbeats_are_spread_over_the_interval() {
        let interval = millis(HEARTBEAT_INTERVAL);
        assert_eq!(heartbeat_offset_ms(0, 10_000), 0);
        assert_eq!(heartbeat_offset_ms(5_000, 10_000), interval / 2);
        assert!(heartbeat_offset_ms(9_999, 10_000) < interval);
        // Per second of the interval, the same share of nodes.
        let per_second = (0..10_000)
            .filter(|&i| heartbeat_offset_ms(i, 10_000) < 1000)
            .count();
        assert_eq!(per_second, 10_000 * 1000 / interval as usize);
        assert_eq!(heartbeat_offset_ms(0, 0), 0);
    }
}

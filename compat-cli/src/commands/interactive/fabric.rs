//! srun as the hub of a step's fabric (docs/mpi.md): each node's supervisor sends its blob for a collective over
//! its step connection; once every node's blob of that collective is in, srun sends all of them, in step node
//! order, back to every node. A node whose connection closes fails every collective not yet complete, and every
//! later one, on all nodes, so no MPI server waits forever.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use spur_core::wire::step_io::{encode_blobs, split_frames, Frame, Kind, MAX_GATHER_BYTES};

use super::remote::NodeLink;

/// The most collectives a step may have in progress at once (each node is in at most one at a time; this only
/// bounds what a faulty supervisor could make srun hold).
const MAX_OPEN_ROUNDS: usize = 1024;

/// The hub of one step; cheap to clone.
#[derive(Clone)]
pub struct Hub(Arc<Mutex<State>>);

struct State {
    links: Vec<Option<NodeLink>>,
    /// A node's blob still arriving in pieces, by (collective, node).
    partial: BTreeMap<(u32, usize), Vec<u8>>,
    /// Collectives in progress: each node's blob once complete.
    rounds: BTreeMap<u32, Vec<Option<Vec<u8>>>>,
    /// Once set, every collective fails with this.
    failed: Option<String>,
}

impl Hub {
    pub fn new(nodes: usize) -> Hub {
        Hub(Arc::new(Mutex::new(State {
            links: vec![None; nodes],
            partial: BTreeMap::new(),
            rounds: BTreeMap::new(),
            failed: None,
        })))
    }

    /// Node `node`'s supervisor is connected.
    pub fn attach(&self, node: usize, link: NodeLink) {
        if let Ok(mut state) = self.0.lock() {
            if let Some(slot) = state.links.get_mut(node) {
                *slot = Some(link);
            }
        }
    }

    /// A fabric frame from node `node`.
    pub fn contribute(&self, node: usize, frame: Frame) {
        let Ok(mut state) = self.0.lock() else {
            return;
        };
        if let Some(why) = state.failed.clone() {
            send_to(
                &state.links,
                node,
                &Frame::new(Kind::GatherFailed, 0, frame.aux, why.into_bytes()),
            );
            return;
        }
        let seq = frame.aux;
        let piece = state.partial.entry((seq, node)).or_default();
        if piece.len().saturating_add(frame.data.len()) > MAX_GATHER_BYTES {
            fail(
                &mut state,
                &format!("allgather: node {node}'s blob is over the fabric's limit"),
            );
            return;
        }
        piece.extend_from_slice(&frame.data);
        if frame.kind != Kind::Gather {
            return;
        }
        let blob = state.partial.remove(&(seq, node)).unwrap_or_default();
        let nodes = state.links.len();
        if !state.rounds.contains_key(&seq) && state.rounds.len() >= MAX_OPEN_ROUNDS {
            fail(&mut state, "allgather: too many collectives in progress");
            return;
        }
        let round = state.rounds.entry(seq).or_insert_with(|| vec![None; nodes]);
        if let Some(slot) = round.get_mut(node) {
            *slot = Some(blob);
        }
        if round.iter().any(Option::is_none) {
            return;
        }
        let blobs: Vec<Vec<u8>> = state
            .rounds
            .remove(&seq)
            .unwrap_or_default()
            .into_iter()
            .flatten()
            .collect();
        let total: usize = blobs.iter().map(|b| b.len().saturating_add(4)).sum();
        if total > MAX_GATHER_BYTES {
            fail(
                &mut state,
                "allgather: the result is over the fabric's limit",
            );
            return;
        }
        let frames = split_frames(
            Kind::GatheredPart,
            Kind::Gathered,
            seq,
            &encode_blobs(&blobs),
        );
        for target in 0..nodes {
            for frame in &frames {
                send_to(&state.links, target, frame);
            }
        }
    }

    /// Node `node`'s connection closed: collectives that need it can never complete.
    pub fn node_closed(&self, node: usize, node_name: &str) {
        if let Ok(mut state) = self.0.lock() {
            if let Some(slot) = state.links.get_mut(node) {
                *slot = None;
            }
            fail(
                &mut state,
                &format!("allgather: lost contact with node {node_name}"),
            );
        }
    }
}

/// Fails the hub: every open collective and every later one, on every node still connected.
fn fail(state: &mut State, why: &str) {
    if state.failed.is_none() {
        state.failed = Some(why.to_string());
    }
    let why = state.failed.clone().unwrap_or_default();
    state.rounds.clear();
    state.partial.clear();
    for node in 0..state.links.len() {
        send_to(
            &state.links,
            node,
            &Frame::new(Kind::GatherFailed, 0, 0, why.clone().into_bytes()),
        );
    }
}

fn send_to(links: &[Option<NodeLink>], node: usize, frame: &Frame) {
    if let Some(Some(link)) = links.get(node) {
        link.send(frame);
    }
}

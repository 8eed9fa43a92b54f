//! The step fabric: collectives across a step's nodes for the MPI servers (docs/mpi.md). One operation,
//! allgather: each node's supervisor contributes one blob per collective (collectives numbered in the order each
//! node calls them), and every node gets all nodes' blobs in step node order. srun is the hub: the supervisors
//! already hold a keyed connection to it, so a collective is one frame up and one down, with no new listener and
//! no shared file system. A node that goes away, srun going away, or the step ending fails every pending and later
//! collective; nothing waits forever.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};

use spur_core::wire::step_io::{decode_blobs, split_frames, Frame, Kind, MAX_GATHER_BYTES};

/// Sends one frame to srun; `false` when it could not be sent.
pub type SendFrame = dyn Fn(Frame) -> bool + Send + Sync;

/// This node's end of the step fabric; cheap to clone, usable from any thread.
#[derive(Clone)]
pub struct StepFabric {
    inner: Arc<Inner>,
}

struct Inner {
    send: Box<SendFrame>,
    nodes: u32,
    state: Mutex<State>,
    done: Condvar,
}

#[derive(Default)]
struct State {
    next_seq: u32,
    /// Results not yet taken by their caller, by collective.
    results: HashMap<u32, Vec<Vec<u8>>>,
    /// Pieces of a result still arriving.
    partial: HashMap<u32, Vec<u8>>,
    /// Set once the fabric is down: every pending and later collective fails with this.
    failed: Option<String>,
}

impl StepFabric {
    /// A fabric for node `node` of a step on `nodes` nodes, sending its frames with `send`.
    pub fn new(nodes: u32, send: Box<SendFrame>) -> StepFabric {
        StepFabric {
            inner: Arc::new(Inner {
                send,
                nodes,
                state: Mutex::new(State::default()),
                done: Condvar::new(),
            }),
        }
    }

    /// Contributes `blob` to the next collective and blocks until every node's blob is in (by step node index),
    /// or the fabric fails.
    pub fn allgather(&self, blob: Vec<u8>) -> Result<Vec<Vec<u8>>, String> {
        if blob.len() > MAX_GATHER_BYTES {
            return Err(format!(
                "allgather: {} bytes is over the fabric's limit of {MAX_GATHER_BYTES}",
                blob.len()
            ));
        }
        let inner = &self.inner;
        let seq = {
            let mut state = inner.lock()?;
            if let Some(why) = &state.failed {
                return Err(why.clone());
            }
            let seq = state.next_seq;
            state.next_seq = seq.wrapping_add(1);
            seq
        };
        // A step on one node needs no round trip.
        if inner.nodes <= 1 {
            return Ok(vec![blob]);
        }
        for frame in split_frames(Kind::GatherPart, Kind::Gather, seq, &blob) {
            if !(inner.send)(frame) {
                self.fail("allgather: srun cannot be reached");
                break;
            }
        }
        let mut state = inner.lock()?;
        loop {
            if let Some(result) = state.results.remove(&seq) {
                return Ok(result);
            }
            if let Some(why) = &state.failed {
                return Err(why.clone());
            }
            state = inner
                .done
                .wait(state)
                .map_err(|_| "allgather: the fabric's lock is poisoned".to_string())?;
        }
    }

    /// Takes srun's frames of the fabric (results and failures); other frames are ignored.
    pub fn deliver(&self, frame: Frame) {
        let Ok(mut state) = self.inner.lock() else {
            return;
        };
        match frame.kind {
            Kind::GatheredPart | Kind::Gathered => {
                let piece = state.partial.entry(frame.aux).or_default();
                if piece.len().saturating_add(frame.data.len()) > MAX_GATHER_BYTES {
                    state.partial.remove(&frame.aux);
                    drop(state);
                    self.fail("allgather: result over the fabric's limit");
                    return;
                }
                piece.extend_from_slice(&frame.data);
                if frame.kind == Kind::Gathered {
                    let bytes = state.partial.remove(&frame.aux).unwrap_or_default();
                    match decode_blobs(&bytes) {
                        Some(blobs) if blobs.len() == self.inner.nodes as usize => {
                            state.results.insert(frame.aux, blobs);
                            self.inner.done.notify_all();
                        }
                        _ => {
                            drop(state);
                            self.fail("allgather: malformed result from srun");
                        }
                    }
                }
            }
            Kind::GatherFailed => {
                drop(state);
                self.fail(&String::from_utf8_lossy(&frame.data));
            }
            _ => {}
        }
    }

    /// Fails every pending and later collective with `why` (srun gone, the step over).
    pub fn fail(&self, why: &str) {
        if let Ok(mut state) = self.inner.lock() {
            if state.failed.is_none() {
                state.failed = Some(why.to_string());
            }
            self.inner.done.notify_all();
        }
    }
}

impl Inner {
    fn lock(&self) -> Result<std::sync::MutexGuard<'_, State>, String> {
        self.state
            .lock()
            .map_err(|_| "allgather: the fabric's lock is poisoned".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::wire::step_io::{encode_blobs, split_frames};
    use std::sync::mpsc;

    fn fabric(nodes: u32) -> (StepFabric, mpsc::Receiver<Frame>) {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let send = move |frame: Frame| tx.lock().map(|t| t.send(frame).is_ok()).unwrap_or(false);
        (StepFabric::new(nodes, Box::new(send)), rx)
    }

    #[test]
    fn one_node_needs_no_round_trip() {
        let (fabric, rx) = fabric(1);
        assert_eq!(fabric.allgather(b"x".to_vec()), Ok(vec![b"x".to_vec()]));
        assert!(rx.try_recv().is_err());
    }

    #[test]
    fn a_collective_returns_srun_s_result_and_numbers_follow_the_calls() {
        let (fabric, rx) = fabric(2);
        let caller = fabric.clone();
        let first = std::thread::spawn(move || caller.allgather(b"mine".to_vec()));
        let sent = rx.recv().unwrap();
        assert_eq!(
            (sent.kind, sent.aux, sent.data.as_slice()),
            (Kind::Gather, 0, &b"mine"[..])
        );
        let result = encode_blobs(&[b"mine".to_vec(), b"theirs".to_vec()]);
        // The result comes in pieces, as srun splits big ones.
        let (head, tail) = result.split_at(3);
        fabric.deliver(Frame::new(Kind::GatheredPart, 0, 0, head.to_vec()));
        fabric.deliver(Frame::new(Kind::Gathered, 0, 0, tail.to_vec()));
        assert_eq!(
            first.join().unwrap(),
            Ok(vec![b"mine".to_vec(), b"theirs".to_vec()])
        );
        let caller = fabric.clone();
        let second = std::thread::spawn(move || caller.allgather(Vec::new()));
        assert_eq!(rx.recv().unwrap().aux, 1);
        for frame in split_frames(
            Kind::GatheredPart,
            Kind::Gathered,
            1,
            &encode_blobs(&[vec![], vec![1]]),
        ) {
            fabric.deliver(frame);
        }
        assert_eq!(second.join().unwrap(), Ok(vec![vec![], vec![1]]));
    }

    #[test]
    fn failures_end_pending_and_later_collectives() {
        let (fabric, rx) = fabric(3);
        let caller = fabric.clone();
        let pending = std::thread::spawn(move || caller.allgather(b"a".to_vec()));
        rx.recv().unwrap();
        fabric.deliver(Frame::new(
            Kind::GatherFailed,
            0,
            0,
            b"node n2 is gone".to_vec(),
        ));
        assert_eq!(pending.join().unwrap(), Err("node n2 is gone".to_string()));
        assert_eq!(
            fabric.allgather(Vec::new()),
            Err("node n2 is gone".to_string())
        );
    }

    #[test]
    fn a_result_with_the_wrong_node_count_fails_the_fabric() {
        let (fabric, rx) = fabric(2);
        let caller = fabric.clone();
        let pending = std::thread::spawn(move || caller.allgather(Vec::new()));
        rx.recv().unwrap();
        fabric.deliver(Frame::new(Kind::Gathered, 0, 0, encode_blobs(&[vec![]])));
        assert!(pending.join().unwrap().is_err());
    }

    #[test]
    fn srun_gone_fails_the_call() {
        let fabric = StepFabric::new(2, Box::new(|_| false));
        assert!(fabric.allgather(b"x".to_vec()).is_err());
    }
}

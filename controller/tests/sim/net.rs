//! The network between the controller and the agents, as their TCP sessions see it: messages on one link arrive
//! in order after a random delay (messages of different links overtake each other), may be duplicated, and a
//! lost message breaks the session (the caller resets it: both ends reconnect and resend what is unacknowledged).
//! Delivery order is fully determined by the seed: by delivery time, then by send order.

use super::rng::Rng;

/// Milliseconds of simulated time.
pub type Millis = u64;

/// Where a message goes: the controller, or the agent of a node (by index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Peer {
    Controller,
    Agent(usize),
}

/// How hostile the network is. Rates are per mille.
#[derive(Debug, Clone, Copy)]
pub struct Faults {
    pub drop_per_mille: u32,
    pub duplicate_per_mille: u32,
    pub delay_max_ms: Millis,
}

impl Faults {
    pub const NONE: Faults = Faults {
        drop_per_mille: 0,
        duplicate_per_mille: 0,
        delay_max_ms: 5,
    };
}

struct InFlight<M> {
    deliver_at: Millis,
    seq: u64,
    from: Peer,
    to: Peer,
    message: M,
}

pub struct Network<M> {
    rng: Rng,
    pub faults: Faults,
    in_flight: Vec<InFlight<M>>,
    /// The last delivery time per link (from, to): later messages of the link arrive no earlier.
    link_clock: std::collections::BTreeMap<(Peer, Peer), Millis>,
    sent: u64,
    pub dropped: u64,
    pub duplicated: u64,
}

/// More messages than this in flight means a feedback loop in the model, not a busy network.
const IN_FLIGHT_MAX: usize = 100_000;

impl<M: Clone> Network<M> {
    pub fn new(rng: Rng, faults: Faults) -> Self {
        Network {
            rng,
            faults,
            in_flight: Vec::new(),
            link_clock: std::collections::BTreeMap::new(),
            sent: 0,
            dropped: 0,
            duplicated: 0,
        }
    }

    /// Sends a message; `false` when it was lost (the session between the two broke).
    #[must_use]
    pub fn send(&mut self, now: Millis, from: Peer, to: Peer, message: M) -> bool {
        assert!(self.in_flight.len() < IN_FLIGHT_MAX, "network flooded");
        if self.rng.chance(self.faults.drop_per_mille) {
            self.dropped += 1;
            return false;
        }
        let copies = if self.rng.chance(self.faults.duplicate_per_mille) {
            self.duplicated += 1;
            2
        } else {
            1
        };
        for _ in 0..copies {
            let delay = self.rng.between(1, self.faults.delay_max_ms.max(1));
            let link = self.link_clock.entry((from, to)).or_insert(0);
            *link = (*link).max(now + delay);
            let deliver_at = *link;
            self.sent += 1;
            self.in_flight.push(InFlight {
                deliver_at,
                seq: self.sent,
                from,
                to,
                message: message.clone(),
            });
        }
        true
    }

    /// The next message due by `now`, in delivery order, as (from, to, message). One at a time, because handling
    /// a message may break a session and so lose messages due in the same instant.
    pub fn next_due(&mut self, now: Millis) -> Option<(Peer, Peer, M)> {
        let at = self
            .in_flight
            .iter()
            .enumerate()
            .filter(|(_, m)| m.deliver_at <= now)
            .min_by_key(|(_, m)| (m.deliver_at, m.seq))
            .map(|(i, _)| i)?;
        let m = self.in_flight.swap_remove(at);
        Some((m.from, m.to, m.message))
    }

    /// A connection broke: what was in flight from or to `peer` is lost.
    pub fn cut(&mut self, peer: Peer) {
        self.in_flight.retain(|m| m.from != peer && m.to != peer);
    }

    pub fn is_idle(&self) -> bool {
        self.in_flight.is_empty()
    }
}

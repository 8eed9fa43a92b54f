//! Advance reservations as one pass sees them. A job without `--reservation` may use a reserved node only where its
//! whole run (start + time limit; without a limit, for ever) ends before the reservation begins or starts after it
//! ends; a job with `--reservation=NAME` may use only that reservation's nodes, and only while it is active (the
//! gate keeps it waiting with reason `Reservation` until then). Reservations that have ended are ignored.

use std::collections::HashMap;

use spur_core::model::job::{EpochSecs, JobRecord};
use spur_core::model::reservation::ReservationRecord;

use super::placement::{Availability, Candidate, NodeUse};
use crate::state::ClusterState;

/// What `squeue` shows for a job that reservations alone keep off the nodes it could use.
pub(crate) const RESERVED_FOR_OTHERS: &str = "ReqNodeNotAvail, May be reserved for other job";
/// The same, where a maintenance reservation is among them.
pub(crate) const RESERVED_FOR_MAINT: &str = "ReqNodeNotAvail, Reserved for maintenance";

/// One reservation's hold on a node.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Block {
    pub(crate) start: EpochSecs,
    pub(crate) end: EpochSecs,
    maint: bool,
}

impl Block {
    fn overlaps(&self, start: EpochSecs, end: EpochSecs) -> bool {
        start < self.end && self.start < end
    }
}

/// The reservations of the state that have not ended, per node.
#[derive(Debug, Default)]
pub(crate) struct Book<'s> {
    blocks: HashMap<&'s str, Vec<Block>>,
    by_name: HashMap<&'s str, &'s ReservationRecord>,
}

impl<'s> Book<'s> {
    pub(crate) fn new(state: &'s ClusterState, now: EpochSecs) -> Self {
        let mut book = Book::default();
        for r in state.reservations.values().filter(|r| r.end > now) {
            book.by_name.insert(r.name.as_str(), r);
            for node in &r.nodes {
                book.blocks.entry(node.as_str()).or_default().push(Block {
                    start: r.start,
                    end: r.end,
                    maint: r.flags.maint,
                });
            }
        }
        book
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The windows reservations hold the node (empty for a node no reservation names).
    pub(crate) fn blocks_on(&self, node: &str) -> &[Block] {
        self.blocks.get(node).map_or(&[], Vec::as_slice)
    }

    /// Whether the job may run on the node over `[start, end)`.
    pub(crate) fn admits(
        &self,
        job: &JobRecord,
        node: &str,
        start: EpochSecs,
        end: EpochSecs,
    ) -> bool {
        match &job.spec.reservation {
            Some(name) => self
                .by_name
                .get(name.as_str())
                .is_some_and(|r| r.holds_node(node) && r.is_active(start)),
            None => !self.blocks_on(node).iter().any(|b| b.overlaps(start, end)),
        }
    }

    /// Why reservations keep the job off `nodes` over `[start, end)`: maintenance if one of them is.
    pub(crate) fn description<'n>(
        &self,
        nodes: impl Iterator<Item = &'n str>,
        start: EpochSecs,
        end: EpochSecs,
    ) -> &'static str {
        let mut maint = false;
        for node in nodes {
            maint |= self
                .blocks_on(node)
                .iter()
                .any(|b| b.maint && b.overlaps(start, end));
        }
        if maint {
            RESERVED_FOR_MAINT
        } else {
            RESERVED_FOR_OTHERS
        }
    }

    /// Wraps an availability so that nodes the job may not use over `[start, end)` take no work.
    pub(crate) fn filter<'a, A: Availability>(
        &'a self,
        inner: &'a A,
        job: &'a JobRecord,
        start: EpochSecs,
        end: EpochSecs,
    ) -> Filtered<'a, 's, A> {
        Filtered {
            book: self,
            inner,
            job,
            start,
            end,
        }
    }
}

/// An [`Availability`] seen through the reservations, for one job over one window.
pub(crate) struct Filtered<'a, 's, A> {
    book: &'a Book<'s>,
    inner: &'a A,
    job: &'a JobRecord,
    start: EpochSecs,
    end: EpochSecs,
}

impl<A: Availability> Availability for Filtered<'_, '_, A> {
    fn node_use(&self, candidate: Candidate<'_>) -> Option<NodeUse<'_>> {
        if !self
            .book
            .admits(self.job, &candidate.node.name, self.start, self.end)
        {
            return None;
        }
        self.inner.node_use(candidate)
    }
}

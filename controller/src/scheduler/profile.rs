//! The backfill scheduler's availability profile: for every node, what is taken from now on, as a step function
//! of time. Running jobs give their resources back at start + time limit (never, without a limit); each job the
//! pass starts or reserves takes its resources over its own window. Times where the function steps are rounded up
//! to `bf_resolution`, which bounds how many steps a node can have.

use std::collections::HashMap;
use std::ops::Range;

use spur_core::model::job::{Allocation, EpochSecs, JobRecord};
use spur_core::model::states::JobBaseState;

use crate::rules::placement::{Availability, Candidate, NodeUse};
use crate::rules::reservations::Block;
use crate::rules::unit_bits::{Amounts, StepsUse, UnitLayout};
use crate::state::ClusterState;

/// The end of a window that never ends (no time limit).
pub(super) const NEVER: EpochSecs = EpochSecs::MAX;

#[derive(Debug)]
pub(super) struct Profile<'s> {
    now: EpochSecs,
    resolution_secs: i64,
    index: HashMap<&'s str, usize>,
    nodes: Vec<NodeSteps<'s>>,
}

/// Step `i` holds from `starts[i]` until `starts[i + 1]` (the last one for ever); `starts[0]` is now. Its CPUs and
/// memory are `amounts[i]`, its GRES units the `i`-th run of `layout.words()` words of `units`.
#[derive(Debug)]
struct NodeSteps<'s> {
    starts: Vec<EpochSecs>,
    amounts: Vec<Amounts>,
    units: Vec<u64>,
    layout: UnitLayout<'s>,
}

impl NodeSteps<'_> {
    /// The index of the step that begins at `t`, splitting the one that holds at `t` if needed.
    fn split_at(&mut self, t: EpochSecs) -> usize {
        let i = self.starts.partition_point(|&s| s <= t);
        if let Some(before) = i.checked_sub(1) {
            if self.starts.get(before) == Some(&t) {
                return before;
            }
        }
        // Every t asked for is at or after now, so a step before it exists (were it missing, the new step would
        // start empty). The new step starts as a copy of it.
        let previous = i.saturating_sub(1);
        let words = self.layout.words();
        let amounts = self.amounts.get(previous).copied().unwrap_or_default();
        let units = self
            .units
            .get(previous * words..(previous + 1) * words)
            .map_or_else(|| vec![0; words], <[u64]>::to_vec);
        self.starts.insert(i, t);
        self.amounts.insert(i, amounts);
        let at = (i * words).min(self.units.len());
        self.units.splice(at..at, units);
        i
    }

    /// The steps that overlap `[start, end)`. Most windows start now, in the first step.
    fn span(&self, start: EpochSecs, end: EpochSecs) -> Range<usize> {
        let first = if self.starts.first().is_none_or(|&s| start <= s) {
            0
        } else {
            self.starts.partition_point(|&s| s <= start) - 1
        };
        self.span_from(first, end)
    }

    /// The steps that overlap `[starts[first], end)` (or a window starting later in that step). Windows cover a
    /// few steps, so a walk finds the end sooner than a binary search.
    fn span_from(&self, first: usize, end: EpochSecs) -> Range<usize> {
        let after = first + 1;
        let last = self
            .starts
            .get(after..)
            .unwrap_or_default()
            .iter()
            .position(|&s| s >= end)
            .map_or(self.starts.len(), |n| after + n);
        first..last
    }

    /// What is taken over `steps`; `None` (the node has no room) if the steps are not all there, which the
    /// profile's own bookkeeping rules out.
    fn use_over(&self, steps: Range<usize>) -> Option<NodeUse<'_>> {
        let words = self.layout.words();
        Some(NodeUse::Steps(StepsUse {
            units: self.units.get(steps.start * words..steps.end * words)?,
            amounts: self.amounts.get(steps)?,
            layout: &self.layout,
        }))
    }

    /// Adds (`taken`) or removes the share of the allocation's `at`-th node in `steps`.
    fn apply(&mut self, alloc: &Allocation, at: usize, steps: Range<usize>, taken: bool) {
        let words = self.layout.words();
        for i in steps {
            // `steps` come from `split_at` and `span`, within the profile; one that is not there is skipped.
            if let Some(amounts) = self.amounts.get_mut(i) {
                if taken {
                    amounts.add(alloc);
                } else {
                    amounts.remove(alloc);
                }
            }
            let Some(step) = self.units.get_mut(i * words..(i + 1) * words) else {
                continue;
            };
            for (name, units) in alloc.units_on(at).0 {
                self.layout.mark(step, name, units, taken);
            }
        }
    }
}

impl<'s> Profile<'s> {
    /// `holding` are the jobs that hold resources; the others release nothing. `asked_gres`: every GRES name a
    /// pending job requests (see [`UnitLayout`]).
    pub(super) fn build(
        state: &'s ClusterState,
        now: EpochSecs,
        resolution_secs: i64,
        holding: &[&'s JobRecord],
        asked_gres: &[&str],
    ) -> Self {
        let mut index = HashMap::with_capacity(state.nodes.len());
        let mut nodes = Vec::with_capacity(state.nodes.len());
        for (i, node) in state.nodes.values().enumerate() {
            index.insert(node.name.as_str(), i);
            let layout = UnitLayout::of(node, asked_gres);
            let mut units = vec![0; layout.words()];
            for (name, taken) in &node.alloc_gres {
                layout.mark(&mut units, name, taken, true);
            }
            nodes.push(NodeSteps {
                starts: vec![now],
                amounts: vec![Amounts {
                    cpus: node.alloc_cpus,
                    mem_mb: node.alloc_mem_mb,
                    share_slots: node.alloc_share_slots,
                }],
                units,
                layout,
            });
        }
        let mut profile = Profile {
            now,
            resolution_secs: resolution_secs.max(1),
            index,
            nodes,
        };
        let mut releases: Vec<(usize, EpochSecs, &Allocation, usize)> = Vec::new();
        for &job in holding {
            let Some(alloc) = &job.alloc else {
                continue;
            };
            // A reservation's job is ended when its reservation ends.
            let resv_end = job
                .spec
                .reservation
                .as_ref()
                .filter(|_| job.state == JobBaseState::Running)
                .and_then(|name| state.reservations.get(name))
                .map(|r| profile.round_up(r.end).max(profile.round_up(now + 1)));
            let end = match (profile.release_time(job), resv_end) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => match a.or(b) {
                    Some(end) => end,
                    None => continue,
                },
            };
            for (at, name) in alloc.node_names.iter().enumerate() {
                if let Some(&i) = profile.index.get(name.as_str()) {
                    releases.push((i, end, alloc, at));
                }
            }
        }
        releases.sort_by_key(|&(i, end, _, _)| (i, end));
        for (i, end, alloc, at) in releases {
            // `i` came from `profile.index`, which numbers `profile.nodes`.
            let Some(steps) = profile.nodes.get_mut(i) else {
                continue;
            };
            let from = steps.split_at(end);
            let all = steps.starts.len();
            steps.apply(alloc, at, from..all, false);
        }
        profile
    }

    /// When a job holding resources gives them back: start + time limit (or its end, see below), at the earliest
    /// one step from now
    /// (an overdue job is still there now); never for a suspended job or one without a limit.
    fn release_time(&self, job: &JobRecord) -> Option<EpochSecs> {
        let soonest = self.round_up(self.now + 1);
        if job.completing {
            return Some(soonest);
        }
        if job.state != JobBaseState::Running {
            return None;
        }
        // A running job has an end of its own only when preemption set one: the end of its grace time, or its
        // limit moved out by the time it spent suspended.
        let end = match job.end_time {
            Some(end) => end,
            None => job.start_time? + i64::from(job.time_limit_min?) * 60,
        };
        Some(self.round_up(end).max(soonest))
    }

    /// The node's position in the profile (and so in [`Candidate::idx`]).
    pub(super) fn index_of(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    pub(super) fn now(&self) -> EpochSecs {
        self.now
    }

    pub(super) fn round_up(&self, t: EpochSecs) -> EpochSecs {
        let r = self.resolution_secs;
        t.div_euclid(r)
            .saturating_add(i64::from(t.rem_euclid(r) != 0))
            * r
    }

    /// Where a job starting at `start` that runs `duration_secs` (`None`: no limit) has given everything back.
    pub(super) fn end_of(&self, start: EpochSecs, duration_secs: Option<i64>) -> EpochSecs {
        match duration_secs {
            Some(d) => self.round_up(start.saturating_add(d)),
            None => NEVER,
        }
    }

    /// Takes the allocation's resources over `[start, end)`.
    pub(super) fn reserve(&mut self, alloc: &Allocation, start: EpochSecs, end: EpochSecs) {
        for (at, name) in alloc.node_names.iter().enumerate() {
            let Some(&i) = self.index.get(name.as_str()) else {
                continue;
            };
            // `index` numbers `nodes`, so the node is there.
            let Some(steps) = self.nodes.get_mut(i) else {
                continue;
            };
            let first = steps.split_at(start);
            let last = if end == NEVER {
                steps.starts.len()
            } else {
                steps.split_at(end)
            };
            steps.apply(alloc, at, first..last, true);
        }
    }

    pub(super) fn window(&self, start: EpochSecs, end: EpochSecs) -> Window<'_, 's> {
        Window {
            profile: self,
            start,
            end,
        }
    }

    /// The earliest time in `[from, horizon]` at which the node has room, as `fits` judges it, for a window of
    /// `duration_secs`. Only `from` and the node's own step times can be that time.
    pub(super) fn earliest_on(
        &self,
        idx: usize,
        from: EpochSecs,
        horizon: EpochSecs,
        duration_secs: Option<i64>,
        blocks: &[Block],
        fits: impl Fn(NodeUse<'_>) -> bool,
    ) -> Option<EpochSecs> {
        let steps = self.nodes.get(idx)?;
        if blocks.is_empty() {
            // `from`, then each step time after it: the step each window starts in is known, so only its end is
            // looked for. This runs for every node in every reservation search, mostly to try one time.
            let mut first = steps
                .starts
                .partition_point(|&s| s <= from)
                .saturating_sub(1);
            let mut t = from;
            while t <= horizon {
                let end = self.end_of(t, duration_secs);
                if steps
                    .use_over(steps.span_from(first, end))
                    .is_some_and(&fits)
                {
                    return Some(t);
                }
                first += 1;
                t = *steps.starts.get(first)?;
            }
            return None;
        }
        // Reservations on the node: the end of one is also a time the node may become usable.
        let mut times: Vec<EpochSecs> = steps
            .starts
            .iter()
            .copied()
            .chain(blocks.iter().map(|b| self.round_up(b.end)))
            .filter(|&s| s > from && s <= horizon)
            .collect();
        times.sort_unstable();
        times.dedup();
        std::iter::once(from)
            .chain(times)
            .take_while(|&t| t <= horizon)
            .find(|&t| {
                let end = self.end_of(t, duration_secs);
                !blocks.iter().any(|b| t < b.end && b.start < end)
                    && steps.use_over(steps.span(t, end)).is_some_and(&fits)
            })
    }
}

/// The profile seen over one time window: what a job running through all of it could use.
pub(super) struct Window<'p, 's> {
    profile: &'p Profile<'s>,
    start: EpochSecs,
    end: EpochSecs,
}

impl Availability for Window<'_, '_> {
    fn node_use(&self, candidate: Candidate<'_>) -> Option<NodeUse<'_>> {
        if !candidate.node.accepts_work() {
            return None;
        }
        let steps = self.profile.nodes.get(candidate.idx)?;
        steps.use_over(steps.span(self.start, self.end))
    }
}

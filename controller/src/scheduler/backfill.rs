//! `sched/backfill`: jobs are taken in priority order; one that cannot start now gets a reservation at the
//! earliest time its resources are free (running jobs end at start + time limit), and a lower-priority job starts
//! now only if, over its whole time limit, it stays clear of every reservation made before it. So a backfilled
//! job never delays a job ahead of it that holds a reservation.
//!
//! Like Slurm, reservations are made for at most `bf_max_job_test` jobs per pass and only within `bf_window`;
//! a job beyond either bound may still start now, but nothing is held for it.

use std::collections::{HashMap, HashSet};

use spur_core::model::job::{Allocation, EpochSecs, JobRecord};
use spur_core::model::states::JobReason;

use super::profile::Profile;
use crate::rules::placement::{
    self, fits_quickly, job_cpus, job_mem_mb, place_among, Candidate, NodeFilter,
};
use crate::rules::reservations::Book;
use crate::rules::switches;
use crate::state::{BackfillSettings, ClusterState, Forecast};

/// Bound on the rounds of the earliest-start search for one job: each round moves past one step of the profile
/// where the nodes that were each free on their own were not free together.
const EARLIEST_ROUNDS_MAX: usize = 32;

/// Bound on the requests remembered as not fitting now; checking a job against them is linear.
const FAILED_DEMANDS_MAX: usize = 256;

/// What the pass decided for a job that only resources hold back.
#[derive(Debug)]
pub(super) enum Decision {
    Start(Allocation),
    Wait {
        reason: JobReason,
        forecast: Option<Forecast>,
        /// Free text squeue shows instead of the reason's name (reservations keeping the job off).
        desc: Option<&'static str>,
    },
}

pub(super) struct Backfill<'s> {
    state: &'s ClusterState,
    settings: BackfillSettings,
    profile: Profile<'s>,
    book: Book<'s>,
    /// Each shape of job met in the pass, numbered (its hash is computed once per job), and what the pass
    /// learned about it.
    shapes: HashMap<Shape<'s>, usize>,
    memos: Memos,
    candidates: HashMap<(&'s str, Option<&'s str>), Vec<Candidate<'s>>>,
    blocked_partitions: HashSet<&'s str>,
    /// The same for plain requests: a request asking at least as much skips the nodes before that position.
    fit_positions: Vec<(Demand<'s>, usize)>,
    /// Plain requests that did not fit now: a job asking at least as much of everything, for at least as long,
    /// does not fit either.
    failed_demands: Vec<Demand<'s>>,
    reservations_made: usize,
    /// Plain requests searched for a start, with the earliest found (`None`: none in the window).
    searched: Vec<(Demand<'s>, Option<EpochSecs>)>,
}

impl<'s> Backfill<'s> {
    /// `holding`: the jobs that hold resources (running or completing with an allocation); `asked_gres`: the GRES
    /// names pending jobs request.
    pub(super) fn new(
        state: &'s ClusterState,
        now: EpochSecs,
        holding: &[&'s JobRecord],
        asked_gres: &[&str],
    ) -> Self {
        let settings = state.settings.backfill.clone();
        let resolution = i64::from(settings.resolution_secs);
        let profile = Profile::build(state, now, resolution, holding, asked_gres);
        Backfill {
            state,
            settings,
            profile,
            book: Book::new(state, now),
            shapes: HashMap::new(),
            memos: Memos::default(),
            candidates: HashMap::new(),
            blocked_partitions: HashSet::new(),
            fit_positions: Vec::new(),
            failed_demands: Vec::new(),
            reservations_made: 0,
            searched: Vec::new(),
        }
    }

    pub(super) fn decide(&mut self, job: &'s JobRecord) -> Decision {
        let state = self.state;
        let Some(partition) = state.partition(&job.partition) else {
            return self.wait(job, None, None);
        };
        let profile = &self.profile;
        let resv = job.spec.reservation.as_deref();
        let key = (partition.name.as_str(), resv);
        self.candidates.entry(key).or_insert_with(|| {
            let mut all = placement::candidates(state, partition, |n| profile.index_of(n));
            // A reservation's jobs look only at its nodes.
            if let Some(name) = resv {
                all.retain(|c| {
                    state
                        .reservations
                        .get(name)
                        .is_some_and(|r| r.holds_node(&c.node.name))
                });
            }
            all
        });
        let Some(candidates) = self.candidates.get(&key) else {
            // Just inserted above; were it missing, there would be no node to try.
            return self.wait(job, None, None);
        };
        let next = self.memos.0.len();
        let shape = *self.shapes.entry(Shape::of(job)).or_insert(next);
        if shape == next {
            self.memos.0.push(ShapeMemo::default());
        }
        let duration = duration_secs(job);
        let now = self.profile.now();
        let mut end_now = self.profile.end_of(now, duration);
        // A reservation's job ends with its reservation at the latest (the runtime ends it there).
        if let Some(r) = job
            .spec
            .reservation
            .as_ref()
            .and_then(|name| state.reservations.get(name))
        {
            end_now = end_now.min(self.profile.round_up(r.end));
        }
        let demand = Demand::of(state, job, end_now);
        let dominated = demand
            .as_ref()
            .is_some_and(|d| self.failed_demands.iter().any(|f| d.covers(f)));
        if dominated {
            self.memos.update(shape, |m| m.failed_now = true);
        }
        if !self.memos.get(shape).failed_now {
            let end = end_now;
            let window = self.profile.window(now, end);
            let mut skip = self.memos.get(shape).first_fit;
            if let Some(d) = &demand {
                for (smaller, at) in &self.fit_positions {
                    if *at > skip && d.covers(smaller) {
                        skip = *at;
                    }
                }
            }
            let avail = self.book.filter(&window, job, now, end);
            let placed = place_among(state, candidates, skip, &avail, job);
            let spans_too_many = placed
                .as_ref()
                .is_some_and(|(alloc, _)| !switches::within_request(state, job, alloc, now));
            if let Some((alloc, at)) = placed.filter(|_| !spans_too_many) {
                self.profile.reserve(&alloc, now, end);
                self.memos.update(shape, |m| m.first_fit = at);
                if let Some(d) = demand {
                    let room = self.fit_positions.len() < FAILED_DEMANDS_MAX;
                    match self.fit_positions.iter_mut().find(|(known, _)| *known == d) {
                        Some((_, known_at)) => *known_at = (*known_at).max(at),
                        None if room => self.fit_positions.push((d, at)),
                        None => {}
                    }
                }
                return Decision::Start(alloc);
            }
            // A job holding out for fewer switches says nothing about others of its shape, and nothing is
            // planned for it: what it would take now is left to the jobs behind it.
            if spans_too_many {
                return self.wait(job, None, None);
            }
            self.memos.update(shape, |m| m.failed_now = true);
            if let Some(d) = &demand {
                if self.failed_demands.len() < FAILED_DEMANDS_MAX {
                    self.failed_demands.push(d.clone());
                }
            }
        }
        // A reservation's job waits only for its reservation's nodes; nothing is planned for it.
        if resv.is_some() {
            return Decision::Wait {
                reason: JobReason::Resources,
                forecast: None,
                desc: None,
            };
        }
        let desc = match self.memos.get(shape).held_off {
            Some(known) => known,
            None => {
                let desc = held_off_by_reservations(
                    state,
                    &self.book,
                    &self.profile,
                    job,
                    candidates,
                    end_now,
                );
                self.memos.update(shape, |m| m.held_off = Some(desc));
                desc
            }
        };
        if self.reservations_made >= self.settings.max_job_test as usize {
            return self.wait(job, None, desc);
        }
        self.reservations_made += 1;
        // What is known of smaller requests bounds this one's search: it cannot start before any of them could.
        let mut from = match self.memos.get(shape).earliest_found {
            Some(None) => return self.wait(job, None, desc),
            Some(Some(t)) => t,
            None => now,
        };
        if let Some(d) = &demand {
            for (_, earliest) in self.searched.iter().filter(|(f, _)| d.covers(f)) {
                match earliest {
                    None => return self.wait(job, None, desc),
                    Some(t) => from = from.max(*t),
                }
            }
        }
        let found = self.earliest(job, candidates, from, duration);
        let earliest = found.as_ref().map(|(t, _)| *t);
        self.memos
            .update(shape, |m| m.earliest_found = Some(earliest));
        if let Some(d) = demand {
            if self.searched.len() < FAILED_DEMANDS_MAX {
                self.searched.push((d, earliest));
            }
        }
        let forecast = found.map(|(start, alloc)| {
            let end = self.profile.end_of(start, duration);
            self.profile.reserve(&alloc, start, end);
            Forecast {
                start,
                nodes: spur_core::grammar::hostlist::compress(&alloc.node_names),
            }
        });
        self.wait(job, forecast, desc)
    }

    /// Where the job could start now, given what the pass has taken so far and the reservations made for jobs
    /// ahead of it, without taking anything: a heterogeneous job's components are tried one by one and start
    /// only if all fit ([`super::het`]).
    pub(super) fn try_now(&self, job: &JobRecord) -> Option<Allocation> {
        let state = self.state;
        let partition = state.partition(&job.partition)?;
        let profile = &self.profile;
        let mut candidates = placement::candidates(state, partition, |n| profile.index_of(n));
        if let Some(name) = job.spec.reservation.as_deref() {
            candidates.retain(|c| {
                state
                    .reservations
                    .get(name)
                    .is_some_and(|r| r.holds_node(&c.node.name))
            });
        }
        let now = profile.now();
        let end = profile.end_of(now, duration_secs(job));
        let window = profile.window(now, end);
        let avail = self.book.filter(&window, job, now, end);
        place_among(state, &candidates, 0, &avail, job).map(|(alloc, _)| alloc)
    }

    /// Takes what [`Self::try_now`] found, from now to the job's end.
    pub(super) fn take_now(&mut self, alloc: &Allocation, job: &JobRecord) {
        let now = self.profile.now();
        let end = self.profile.end_of(now, duration_secs(job));
        self.profile.reserve(alloc, now, end);
    }

    /// The first job of a partition that must wait waits for `Resources`, the ones after it for `Priority`; one
    /// that only reservations keep off waits for `ReqNodeNotAvail` with the text that says why.
    fn wait(
        &mut self,
        job: &'s JobRecord,
        forecast: Option<Forecast>,
        desc: Option<&'static str>,
    ) -> Decision {
        if desc.is_some() {
            return Decision::Wait {
                reason: JobReason::NodeNotAvail,
                forecast,
                desc,
            };
        }
        let reason = if self.blocked_partitions.insert(job.partition.as_str()) {
            JobReason::Resources
        } else {
            JobReason::Priority
        };
        Decision::Wait {
            reason,
            forecast,
            desc: None,
        }
    }

    /// The earliest time within `bf_window` at which the job's nodes are all free for its whole time limit, and
    /// where it would run then.
    fn earliest(
        &self,
        job: &JobRecord,
        candidates: &[Candidate<'_>],
        from: EpochSecs,
        duration: Option<i64>,
    ) -> Option<(EpochSecs, Allocation)> {
        let filter = NodeFilter::of(job)?;
        let sharing = placement::sharing_of(self.state, job);
        let horizon = self
            .profile
            .now()
            .saturating_add(i64::from(self.settings.window_min) * 60);
        let wanted = job.spec.nodes_min.max(1) as usize;
        // Under a switch tree the earliest nodes may sit under different switches: every node's time is needed to
        // step to the next moment some node frees up.
        let whole_search = !self.state.settings.switch_tree.is_empty();
        let mut t0 = from;
        for _ in 0..EARLIEST_ROUNDS_MAX {
            if t0 > horizon {
                return None;
            }
            // The `wanted` earliest per-node starts so far, ascending: a node can only matter if it is free
            // before the last of them, so later nodes search no further than that.
            let mut best: Vec<EpochSecs> = Vec::with_capacity(wanted.min(candidates.len()) + 1);
            let mut required_at = t0;
            let mut node_starts: Vec<EpochSecs> = Vec::new();
            let mut searched: Vec<NodeSearch> = Vec::new();
            let mut unsearched_from = candidates.len();
            let admitted = candidates
                .iter()
                .enumerate()
                .filter(|(_, c)| filter.admits(c.node));
            for (at, candidate) in admitted {
                let node = candidate.node;
                let required = filter.requires(node);
                if !node.accepts_work() {
                    if required {
                        return None;
                    }
                    continue;
                }
                // `best` never holds more than `wanted`, so when full its last is the `wanted`-th earliest.
                let last_of_full = best.last().copied().filter(|_| best.len() == wanted);
                if !required
                    && !whole_search
                    && filter.required_count() == 0
                    && last_of_full == Some(t0)
                {
                    unsearched_from = at;
                    break;
                }
                let bound = match last_of_full {
                    Some(last) if !required && !whole_search => last,
                    _ => horizon,
                };
                let cpus = job_cpus(job, node, sharing);
                let mem = job_mem_mb(self.state, job, node, cpus);
                let blocks = self.book.blocks_on(&node.name);
                let earliest =
                    self.profile
                        .earliest_on(candidate.idx, t0, bound, duration, blocks, |used| {
                            fits_quickly(used, job, node, cpus, mem, sharing)
                        });
                match (earliest, required) {
                    (Some(t), true) => required_at = required_at.max(t),
                    (None, true) => return None,
                    _ => {}
                }
                if let Some(t) = earliest {
                    node_starts.push(t);
                    let at = best.partition_point(|&b| b <= t);
                    best.insert(at, t);
                    best.truncate(wanted);
                }
                searched.push(NodeSearch {
                    at,
                    earliest,
                    bound,
                    reserved: !blocks.is_empty(),
                });
            }
            if best.len() < wanted {
                return None;
            }
            let t = best.last().copied()?.max(required_at);
            let end = self.profile.end_of(t, duration);
            let window = self.profile.window(t, end);
            let avail = self.book.filter(&window, job, t, end);
            // Placing on every candidate again would repeat most of the search: the nodes the search found no
            // room on by `t` have none at `t` either, so only the others (in the same order) are offered.
            let may_fit: Vec<Candidate<'_>> = searched
                .iter()
                .filter(|n| n.may_fit_at(t))
                .filter_map(|n| candidates.get(n.at).copied())
                .chain(
                    candidates
                        .get(unsearched_from..)
                        .unwrap_or_default()
                        .iter()
                        .copied(),
                )
                .collect();
            if let Some((alloc, _)) = place_among(self.state, &may_fit, 0, &avail, job) {
                return Some((t, alloc));
            }
            t0 = if whole_search {
                node_starts.into_iter().filter(|&s| s > t).min()?
            } else {
                t + 1
            };
        }
        None
    }
}

/// What the earliest-start search found on one node.
struct NodeSearch {
    /// The node's position among the candidates.
    at: usize,
    /// The earliest start on the node in `[t0, bound]`.
    earliest: Option<EpochSecs>,
    bound: EpochSecs,
    /// Reservations hold the node at times: the search also tries their ends, which are not always steps.
    reserved: bool,
}

impl NodeSearch {
    /// Whether the job may fit on the node from `t` (at or after the round's `t0`). The search tried `t0` and
    /// the node's step times after it, in order; a window starting at `t` covers every step that a window starting
    /// at the last of those times before `t` covers (and takes no less on each), so a node on which none of them
    /// up to `t` fitted has no room at `t`. Nodes held by reservations (whose ends are tried too, unaligned with
    /// steps) and nodes searched only up to a bound before `t` are not known, so they may.
    fn may_fit_at(&self, t: EpochSecs) -> bool {
        self.reserved
            || match self.earliest {
                Some(e) => e <= t,
                None => self.bound < t,
            }
    }
}

/// Whether the job, which cannot start now, could if no reservation held nodes: then reservations are what keeps
/// it waiting, and the text says which kind.
fn held_off_by_reservations(
    state: &ClusterState,
    book: &Book<'_>,
    profile: &Profile<'_>,
    job: &JobRecord,
    candidates: &[Candidate<'_>],
    end: EpochSecs,
) -> Option<&'static str> {
    if book.is_empty() {
        return None;
    }
    let now = profile.now();
    let window = profile.window(now, end);
    place_among(state, candidates, 0, &window, job)
        .map(|_| book.description(candidates.iter().map(|c| c.node.name.as_str()), now, end))
}

fn duration_secs(job: &JobRecord) -> Option<i64> {
    job.time_limit_min.map(|m| i64::from(m) * 60)
}

/// Everything placement looks at in a job, so two jobs of one shape fit (or not) in the same places.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Shape<'s> {
    partition: &'s str,
    time_limit_min: Option<u32>,
    nodes_min: u32,
    ntasks: Option<u32>,
    ntasks_per_node: Option<u32>,
    cpus_per_task: u32,
    exclusive: bool,
    /// `--oversubscribe`, which decides whether the job shares in an `OverSubscribe=YES` partition.
    oversubscribe: bool,
    mem_per_node_mb: Option<u64>,
    mem_per_cpu_mb: Option<u64>,
    mem_per_gpu_mb: Option<u64>,
    cpus_per_gpu: Option<u32>,
    tmp_disk_mb: u64,
    gres: Vec<(&'s str, Option<&'s str>, u64)>,
    required_nodes: Option<&'s str>,
    excluded_nodes: Option<&'s str>,
    constraint: Option<&'s str>,
    reservation: Option<&'s str>,
    switches: Option<spur_core::model::job::SwitchRequest>,
}

impl<'s> Shape<'s> {
    fn of(job: &'s JobRecord) -> Self {
        let spec = &job.spec;
        Shape {
            partition: &job.partition,
            time_limit_min: job.time_limit_min,
            nodes_min: spec.nodes_min,
            ntasks: spec.ntasks,
            ntasks_per_node: spec.ntasks_per_node,
            cpus_per_task: spec.cpus_per_task,
            exclusive: spec.exclusive,
            oversubscribe: spur_core::policy::oversubscribe::asks_oversubscribe(spec),
            mem_per_node_mb: spec.mem_per_node_mb,
            mem_per_cpu_mb: spec.mem_per_cpu_mb,
            mem_per_gpu_mb: spec.mem_per_gpu_in_effect(),
            cpus_per_gpu: spec.cpus_per_gpu_in_effect(),
            tmp_disk_mb: spec.tmp_disk_mb,
            gres: spec
                .gres
                .iter()
                .map(|g| (g.name.as_str(), g.gres_type.as_deref(), g.count))
                .collect(),
            required_nodes: spec.required_nodes.as_deref(),
            excluded_nodes: spec.excluded_nodes.as_deref(),
            constraint: spec.constraint.as_deref(),
            reservation: spec.reservation.as_deref(),
            switches: spec.switches,
        }
    }
}

/// The memos by shape number. `decide` pushes a shape's memo as it numbers the shape, so each number has one; a
/// number without one reads as nothing learned yet (a memo only saves work) and updates to it are dropped.
#[derive(Debug, Default)]
struct Memos(Vec<ShapeMemo>);

impl Memos {
    fn get(&self, shape: usize) -> ShapeMemo {
        self.0.get(shape).copied().unwrap_or_default()
    }

    fn update(&mut self, shape: usize, change: impl FnOnce(&mut ShapeMemo)) {
        if let Some(memo) = self.0.get_mut(shape) {
            change(memo);
        }
    }
}

/// What the pass learned about one shape of job.
#[derive(Debug, Default, Clone, Copy)]
struct ShapeMemo {
    /// A job of the shape did not fit now; what is taken only grows during a pass, so neither will the next.
    failed_now: bool,
    /// Where, among its partition's candidates, the last job of the shape started: the nodes before did not fit
    /// it and will not for the next job of the shape.
    first_fit: usize,
    /// Whether reservations alone kept it from starting now (and which text says so), once known.
    held_off: Option<Option<&'static str>>,
    /// The earliest start found (`None`: none in the window), once searched; the next job of the shape cannot
    /// start sooner, so its search begins there.
    earliest_found: Option<Option<EpochSecs>>,
}

/// A request reduced to amounts per node, for jobs without node lists, constraint, exclusivity, scratch disk or
/// typed GRES; `covers` orders them.
#[derive(Debug, Clone, PartialEq)]
struct Demand<'s> {
    // The derived equality compares in this order: numbers, which tell most demands apart, before names.
    nodes: u32,
    cpus: u32,
    mem_mb: u64,
    end: EpochSecs,
    gres: Vec<(&'s str, u64)>,
    partition: &'s str,
    reservation: Option<&'s str>,
}

impl<'s> Demand<'s> {
    fn of(state: &ClusterState, job: &'s JobRecord, end: EpochSecs) -> Option<Self> {
        let spec = &job.spec;
        // A job that shares cores or takes whole nodes fits by other rules than its CPU count.
        let plain = placement::sharing_of(state, job)
            == spur_core::policy::oversubscribe::JobSharing::OWN_CORES
            && spec.required_nodes.is_none()
            && spec.excluded_nodes.is_none()
            && spec.constraint.is_none()
            && spec.tmp_disk_mb == 0
            && spec.switches.is_none()
            && spec.gres.iter().all(|g| g.gres_type.is_none());
        if !plain {
            return None;
        }
        let cpus = placement::shared_cpus_per_node(job);
        let mem_mb = match (
            state.settings.memory_is_consumable,
            spec.mem_per_node_mb,
            spec.mem_per_cpu_mb,
        ) {
            (false, _, _) => 0,
            (true, Some(m), _) if m > 0 => m,
            (true, None, Some(per_cpu)) => per_cpu.saturating_mul(u64::from(cpus)),
            _ => return None,
        };
        Some(Demand {
            partition: &job.partition,
            reservation: spec.reservation.as_deref(),
            nodes: spec.nodes_min.max(1),
            cpus,
            mem_mb,
            gres: spec
                .gres
                .iter()
                .map(|g| (g.name.as_str(), g.count))
                .collect(),
            end,
        })
    }

    /// Whether this request asks at least as much as `other` of everything, on as many nodes, for as long.
    fn covers(&self, other: &Demand<'_>) -> bool {
        // Numbers first: most pairs differ there, and the names cost a string comparison each.
        self.nodes >= other.nodes
            && self.cpus >= other.cpus
            && self.mem_mb >= other.mem_mb
            && self.end >= other.end
            && self.partition == other.partition
            && self.reservation == other.reservation
            && other.gres.iter().all(|(name, count)| {
                self.gres
                    .iter()
                    .filter(|(n, _)| n == name)
                    .map(|(_, c)| c)
                    .sum::<u64>()
                    >= *count
            })
    }
}

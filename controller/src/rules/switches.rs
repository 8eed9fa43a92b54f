//! Placement under `topology/tree`: a job's nodes come from the lowest switch that can hold it, as Slurm 22.05's
//! select/cons_tres does. Among the switches with enough fitting nodes the lowest level wins, then the one with the
//! fewest fitting nodes (the tightest fit); inside it, leaf switches are taken best-fit: the smallest leaf that
//! holds what is still needed, else the largest, until the job has its nodes. Nodes under no switch are never
//! chosen. `--switches=N[@time]` is checked by the caller ([`within_request`]), which knows the time.

use std::collections::{BTreeMap, BTreeSet};

use spur_core::model::job::{Allocation, EpochSecs, JobRecord};
use spur_core::policy::switch_tree::{Switch, SwitchTree};

use super::placement::{
    fits_quickly, job_cpus, job_mem_mb, place_greedy, Availability, Candidate, NodeFilter,
};
use crate::state::ClusterState;

/// Places the job on nodes under one switch; the position returned is that of the first node that fits at all,
/// so callers that skip known misfits stay correct.
pub(crate) fn place(
    state: &ClusterState,
    tree: &SwitchTree,
    candidates: &[Candidate<'_>],
    skip: usize,
    avail: &impl Availability,
    job: &JobRecord,
) -> Option<(Allocation, usize)> {
    let filter = NodeFilter::of(job)?;
    let wanted = job.spec.nodes_min.max(1) as usize;
    let fitting = fitting_positions(state, candidates, skip, &filter, avail, job);
    let first_at = *fitting.values().min()?;
    let required: Vec<&str> = candidates
        .iter()
        .filter(|c| filter.requires(c.node))
        .map(|c| c.node.name.as_str())
        .collect();
    if required.len() < filter.required_count()
        || required.iter().any(|n| !fitting.contains_key(*n))
    {
        return None;
    }
    let top = lowest_switch(tree, &fitting, &required, wanted)?;
    let chosen = fill_from_leaves(tree, top, &fitting, &required, wanted);
    let restricted: Vec<Candidate<'_>> = candidates
        .iter()
        .filter(|c| chosen.contains(c.node.name.as_str()))
        .copied()
        .collect();
    // The chosen nodes fit one by one; GRES units must also match across them, so fall back to every fitting node
    // under the switch when they do not.
    let alloc = place_greedy(state, &restricted, 0, avail, job)
        .or_else(|| {
            let under: Vec<Candidate<'_>> = candidates
                .iter()
                .filter(|c| fitting.contains_key(c.node.name.as_str()))
                .filter(|c| top.nodes.contains(&c.node.name))
                .copied()
                .collect();
            place_greedy(state, &under, 0, avail, job)
        })?
        .0;
    Some((alloc, first_at))
}

/// The nodes that could take the job's share one by one, with their positions in `candidates`.
fn fitting_positions<'c>(
    state: &ClusterState,
    candidates: &[Candidate<'c>],
    skip: usize,
    filter: &NodeFilter,
    avail: &impl Availability,
    job: &JobRecord,
) -> BTreeMap<&'c str, usize> {
    let sharing = super::placement::sharing_of(state, job);
    candidates
        .iter()
        .enumerate()
        .filter(|(at, c)| *at >= skip || filter.requires(c.node))
        .filter(|(_, c)| filter.admits(c.node))
        .filter(|(_, c)| {
            let node = c.node;
            let Some(used) = avail.node_use(**c) else {
                return false;
            };
            let cpus = job_cpus(job, node, sharing);
            // The same test as choosing units, without allocating them (the greedy pass over the chosen nodes does).
            fits_quickly(
                used,
                job,
                node,
                cpus,
                job_mem_mb(state, job, node, cpus),
                sharing,
            )
        })
        .map(|(at, c)| (c.node.name.as_str(), at))
        .collect()
}

fn fitting_under(switch: &Switch, fitting: &BTreeMap<&str, usize>) -> usize {
    switch
        .nodes
        .iter()
        .filter(|n| fitting.contains_key(n.as_str()))
        .count()
}

/// The lowest switch with enough fitting nodes (and every required node), the tightest of a level winning.
fn lowest_switch<'t>(
    tree: &'t SwitchTree,
    fitting: &BTreeMap<&str, usize>,
    required: &[&str],
    wanted: usize,
) -> Option<&'t Switch> {
    tree.switches
        .iter()
        .filter(|s| required.iter().all(|r| s.nodes.iter().any(|n| n == r)))
        .map(|s| (s, fitting_under(s, fitting)))
        .filter(|(_, count)| *count >= wanted)
        .min_by_key(|(s, count)| (s.level, *count))
        .map(|(s, _)| s)
}

/// Nodes taken leaf by leaf under `top`: leaves holding required nodes first, then best fit.
fn fill_from_leaves<'t>(
    tree: &'t SwitchTree,
    top: &'t Switch,
    fitting: &BTreeMap<&str, usize>,
    required: &[&str],
    wanted: usize,
) -> BTreeSet<&'t str> {
    let below: BTreeSet<&str> = top.nodes.iter().map(String::as_str).collect();
    // Each leaf's fitting nodes in the order the partition prefers them.
    let mut leaves: Vec<Vec<&'t str>> = tree
        .leaves()
        .filter(|l| l.nodes.iter().all(|n| below.contains(n.as_str())))
        .map(|l| {
            let mut nodes: Vec<&'t str> = l
                .nodes
                .iter()
                .map(String::as_str)
                .filter(|n| fitting.contains_key(n))
                .collect();
            nodes.sort_by_key(|n| fitting[n]);
            nodes
        })
        .filter(|nodes| !nodes.is_empty())
        .collect();
    let mut chosen: BTreeSet<&'t str> = BTreeSet::new();
    for r in required {
        if let Some(n) = top.nodes.iter().find(|n| n == r) {
            chosen.insert(n.as_str());
        }
    }
    let take = |leaf: &[&'t str], chosen: &mut BTreeSet<&'t str>, room: usize| {
        let fresh: Vec<&'t str> = leaf
            .iter()
            .filter(|n| !chosen.contains(*n))
            .take(room)
            .copied()
            .collect();
        chosen.extend(fresh);
    };
    // Leaves of required nodes count as taken: their other nodes come first.
    leaves.sort_by_key(|l| !l.iter().any(|n| chosen.contains(n)));
    let with_required = leaves
        .iter()
        .take_while(|l| l.iter().any(|n| chosen.contains(n)))
        .count();
    for leaf in leaves.drain(..with_required) {
        let room = wanted.saturating_sub(chosen.len());
        take(&leaf, &mut chosen, room);
    }
    while chosen.len() < wanted && !leaves.is_empty() {
        let need = wanted - chosen.len();
        let free = |l: &Vec<&str>| l.iter().filter(|n| !chosen.contains(*n)).count();
        let pick = leaves
            .iter()
            .enumerate()
            .filter(|(_, l)| free(l) >= need)
            .min_by_key(|(_, l)| free(l))
            .or_else(|| {
                // No leaf holds the rest: the largest first (the earliest of equals).
                leaves.iter().enumerate().rev().max_by_key(|(_, l)| free(l))
            })
            .map(|(i, _)| i);
        let Some(i) = pick else { break };
        let leaf = leaves.remove(i);
        take(&leaf, &mut chosen, need);
    }
    chosen
}

/// How many leaf switches the nodes span (a node under several leaves counts under its first).
pub fn leaves_spanned(tree: &SwitchTree, nodes: &[String]) -> usize {
    let leaves: BTreeSet<&str> = nodes
        .iter()
        .filter_map(|n| tree.leaves().find(|l| l.nodes.contains(n)))
        .map(|l| l.name.as_str())
        .collect();
    leaves.len()
}

/// Whether the job may start on `alloc` now: always without `--switches` or topology, else when the allocation
/// spans at most the requested leaf switches or the job has waited its time for them (it then takes what there
/// is, as in Slurm).
pub(crate) fn within_request(
    state: &ClusterState,
    job: &JobRecord,
    alloc: &Allocation,
    now: EpochSecs,
) -> bool {
    let tree = &state.settings.switch_tree;
    let Some(request) = job.spec.switches.filter(|s| s.count > 0) else {
        return true;
    };
    if tree.is_empty() {
        return true;
    }
    let waiting_since = job.eligible_time.unwrap_or(job.submit_time);
    let wait = i64::from(request.wait_secs.unwrap_or(0));
    now >= waiting_since.saturating_add(wait)
        || leaves_spanned(tree, &alloc.node_names) <= request.count as usize
}

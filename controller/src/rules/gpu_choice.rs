//! Which of a node's free GPUs a job gets when the node's links are known: the set whose GPUs are best connected
//! to each other, taken where it breaks up the fewest good links among the GPUs left free (see docs/gpus.md).
//!
//! A set is scored by, in order: its weakest link (higher wins, so a set inside one XGMI/NVLink island beats any
//! set that crosses islands), the sum of its links (higher wins), and the links it cuts from the free GPUs left
//! behind (fewer win, so a job fills a partly used island before breaking into a whole one). Ties go to the
//! lowest indices, so the choice is deterministic.

use std::cmp::Reverse;

use spur_core::policy::gpu_topology::GpuTopology;

/// Most candidate sets scored one by one; larger searches (only nodes with more than 16 GPUs reach it) grow a set
/// greedily from each free GPU instead, which still keeps a job inside one island when one has room but may
/// combine islands less well than the exact search.
const EXACT_SETS_MAX: u64 = 20_000;

/// Higher is better; see the module docs.
type Score = (u32, u32, Reverse<u32>);

/// `need` units of `free` (ascending unit indices), in ascending order.
pub(super) fn choose(topology: &GpuTopology, free: &[u32], need: usize) -> Vec<u32> {
    if need == 0 || need >= free.len() {
        return free.iter().take(need).copied().collect();
    }
    let ranks = Ranks::new(topology, free);
    let local = if sets_at_most(free.len(), need, EXACT_SETS_MAX) {
        exact(&ranks, need)
    } else {
        greedy(&ranks, need)
    };
    local
        .into_iter()
        .filter_map(|i| free.get(i).copied())
        .collect()
}

/// Link ranks among the free units, by position in `free`.
struct Ranks {
    n: usize,
    rank: Vec<u32>,
    /// Per unit, the sum of its ranks to every other free unit.
    reach: Vec<u32>,
}

impl Ranks {
    fn new(topology: &GpuTopology, free: &[u32]) -> Ranks {
        let n = free.len();
        let units: Vec<usize> = free
            .iter()
            .map(|&u| usize::try_from(u).unwrap_or(usize::MAX))
            .collect();
        // Row `a` holds the ranks from unit `a` to every unit, so entry `a * n + b` is the link a-b.
        let rank: Vec<u32> = units
            .iter()
            .flat_map(|&a| units.iter().map(move |&b| topology.link(a, b).rank()))
            .collect();
        let reach = rank
            .chunks(n.max(1))
            .enumerate()
            .map(|(a, row)| {
                row.iter()
                    .enumerate()
                    .filter(|&(b, _)| b != a)
                    .map(|(_, r)| r)
                    .sum()
            })
            .collect();
        Ranks { n, rank, reach }
    }

    /// The rank of link a-b; positions come from `0..n`, and one outside it reads as no link at all.
    fn get(&self, a: usize, b: usize) -> u32 {
        self.rank.get(a * self.n + b).copied().unwrap_or(0)
    }
}

/// A set being built: its weakest link, sum of links, and sum of its members' reach.
#[derive(Clone, Copy)]
struct Partial {
    min: u32,
    sum: u32,
    reach: u32,
}

impl Partial {
    const EMPTY: Partial = Partial {
        min: u32::MAX,
        sum: 0,
        reach: 0,
    };

    fn with(self, ranks: &Ranks, members: &[usize], unit: usize) -> Partial {
        let (mut min, mut sum) = (u32::MAX, 0u32);
        for &m in members {
            let r = ranks.get(m, unit);
            min = min.min(r);
            sum = sum.saturating_add(r);
        }
        self.plus(ranks, unit, min, sum)
    }

    /// The set with `unit` added, given its weakest link and sum of links to the members.
    fn plus(self, ranks: &Ranks, unit: usize, min_to: u32, sum_to: u32) -> Partial {
        Partial {
            min: self.min.min(min_to),
            sum: self.sum.saturating_add(sum_to),
            reach: self
                .reach
                .saturating_add(ranks.reach.get(unit).copied().unwrap_or(0)),
        }
    }

    fn score(self) -> Score {
        // Links from the set to the rest: every member's reach less the links inside the set (counted twice).
        let cut = self.reach.saturating_sub(self.sum.saturating_mul(2));
        (self.min, self.sum, Reverse(cut))
    }
}

/// Every set of `need`, in lexicographic order; the first best one wins.
fn exact(ranks: &Ranks, need: usize) -> Vec<usize> {
    let mut best: Option<(Score, Vec<usize>)> = None;
    let mut members: Vec<usize> = Vec::with_capacity(need);
    let mut partials: Vec<Partial> = vec![Partial::EMPTY];
    let mut next = 0usize;
    loop {
        // `partials[k]` is the set of the first `k` members (a stale entry may follow after a backtrack): it is
        // always there for `k = members.len()`, a miss would read as the empty set.
        let current = partials
            .get(members.len())
            .copied()
            .unwrap_or(Partial::EMPTY);
        if members.len() == need {
            let score = current.score();
            if best.as_ref().is_none_or(|(b, _)| score > *b) {
                best = Some((score, members.clone()));
            }
        }
        // Extend with `next` if enough units remain after it, else backtrack.
        if members.len() < need && next + (need - members.len()) <= ranks.n {
            let partial = current.with(ranks, &members, next);
            members.push(next);
            partials.truncate(members.len());
            partials.push(partial);
            next += 1;
            continue;
        }
        match members.pop() {
            Some(last) => next = last + 1,
            None => break,
        }
    }
    best.map(|(_, set)| set)
        .unwrap_or_else(|| (0..need).collect())
}

/// From each seed, add the unit that scores best with the set so far; keep the best finished set.
fn greedy(ranks: &Ranks, need: usize) -> Vec<usize> {
    let mut best: Option<(Score, Vec<usize>)> = None;
    for seed in 0..ranks.n {
        // Each unit's weakest link and sum of links to the set so far, kept up to date as the set grows, so a
        // step costs one pass over the units whatever the set's size.
        let mut min_to = vec![u32::MAX; ranks.n];
        let mut sum_to = vec![0u32; ranks.n];
        let mut in_set = vec![false; ranks.n];
        let mut members = Vec::with_capacity(need);
        let mut partial = Partial::EMPTY;
        let mut next = Some((seed, Partial::EMPTY.plus(ranks, seed, u32::MAX, 0)));
        while let Some((unit, grown)) = next {
            members.push(unit);
            if let Some(taken) = in_set.get_mut(unit) {
                *taken = true;
            }
            partial = grown;
            for (other, (min, sum)) in min_to.iter_mut().zip(sum_to.iter_mut()).enumerate() {
                let r = ranks.get(unit, other);
                *min = (*min).min(r);
                *sum = sum.saturating_add(r);
            }
            if members.len() == need {
                break;
            }
            next = in_set
                .iter()
                .zip(min_to.iter().zip(&sum_to))
                .enumerate()
                .filter(|(_, (&taken, _))| !taken)
                .map(|(u, (_, (&min, &sum)))| (u, partial.plus(ranks, u, min, sum)))
                .fold(None, |acc: Option<(usize, Partial)>, (u, p)| match acc {
                    Some((_, q)) if q.score() >= p.score() => acc,
                    _ => Some((u, p)),
                });
        }
        members.sort_unstable();
        let score = partial.score();
        let better = match &best {
            None => true,
            Some((b, set)) => score > *b || (score == *b && members < *set),
        };
        if better {
            best = Some((score, members));
        }
    }
    best.map(|(_, set)| set)
        .unwrap_or_else(|| (0..need).collect())
}

/// Whether `n` choose `k` is at most `limit` (without overflowing on the way).
fn sets_at_most(n: usize, k: usize, limit: u64) -> bool {
    let k = k.min(n - k.min(n));
    let mut count: u64 = 1;
    for i in 0..k {
        let (Ok(num), Ok(den)) = (u64::try_from(n - i), u64::try_from(i + 1)) else {
            return false;
        };
        count = count.saturating_mul(num) / den;
        if count > limit {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::policy::gpu_topology::{GpuDevice, Link};

    const XGMI: Link = Link::Fabric { links: 1, hops: 1 };

    fn topology(n: usize, link: impl Fn(usize, usize) -> Link) -> GpuTopology {
        let devices = (0..n)
            .map(|i| GpuDevice {
                file: format!("/dev/dri/renderD{}", 128 + i),
                numa_node: None,
                pci_bus_id: None,
            })
            .collect();
        let mut t = GpuTopology::new(devices);
        for a in 0..n {
            for b in a + 1..n {
                t.connect(a, b, link(a, b));
            }
        }
        t
    }

    fn islands_of(size: usize, n: usize) -> GpuTopology {
        topology(n, |a, b| {
            if a / size == b / size {
                XGMI
            } else {
                Link::CrossSocket
            }
        })
    }

    fn all_but(n: u32, taken: &[u32]) -> Vec<u32> {
        (0..n).filter(|i| !taken.contains(i)).collect()
    }

    #[test]
    fn stays_inside_one_island() {
        let t = islands_of(4, 8);
        let free = all_but(8, &[1, 2]);
        assert_eq!(choose(&t, &free, 2), vec![0, 3]);
        assert_eq!(choose(&t, &free, 4), vec![4, 5, 6, 7]);
        // Crossing is unavoidable for five; the set keeps the whole island and adds the lowest other.
        assert_eq!(choose(&t, &free, 5), vec![0, 4, 5, 6, 7]);
    }

    #[test]
    fn fills_a_used_island_before_breaking_a_whole_one() {
        let t = islands_of(4, 8);
        let free = all_but(8, &[4]);
        assert_eq!(choose(&t, &free, 1), vec![5]);
        assert_eq!(choose(&t, &free, 2), vec![5, 6]);
        assert_eq!(choose(&t, &free, 3), vec![5, 6, 7]);
        assert_eq!(choose(&t, &free, 4), vec![0, 1, 2, 3]);
    }

    #[test]
    fn uniform_links_keep_the_lowest_indices() {
        let t = topology(8, |_, _| XGMI);
        assert_eq!(choose(&t, &all_but(8, &[0, 3]), 3), vec![1, 2, 4]);
        assert_eq!(choose(&t, &all_but(8, &[]), 1), vec![0]);
    }

    #[test]
    fn more_bonded_links_win() {
        // DGX-1 style: some pairs have two NVLinks, some one, some none.
        let t = topology(4, |a, b| match (a, b) {
            (0, 3) | (1, 2) => Link::Fabric { links: 2, hops: 1 },
            (0, 1) | (2, 3) => Link::Fabric { links: 1, hops: 1 },
            _ => Link::PcieSwitch,
        });
        assert_eq!(choose(&t, &all_but(4, &[]), 2), vec![0, 3]);
        assert_eq!(choose(&t, &all_but(4, &[0]), 2), vec![1, 2]);
    }

    #[test]
    fn large_nodes_use_the_greedy_search() {
        // 32 GPUs in islands of 8 exceed the exact search for 16.
        let t = islands_of(8, 32);
        let free = all_but(32, &[0, 9]);
        assert!(!sets_at_most(free.len(), 16, EXACT_SETS_MAX));
        let picked = choose(&t, &free, 8);
        assert_eq!(picked, (16..24).collect::<Vec<u32>>());
        let sixteen = choose(&t, &free, 16);
        assert_eq!(sixteen.len(), 16);
        assert!(sixteen.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn the_greedy_search_handles_the_largest_bit_set() {
        // 128 units (the most a node's GRES bit set holds), half of them wanted: whole islands, lowest first.
        let t = islands_of(8, 128);
        let free: Vec<u32> = (0..128).collect();
        assert_eq!(choose(&t, &free, 64), (0..64).collect::<Vec<u32>>());
    }

    #[test]
    fn greedy_stays_in_an_island_whenever_exact_does() {
        // The greedy search is approximate, but never crosses islands when one island has room.
        let t = islands_of(4, 12);
        for taken in [vec![], vec![1], vec![0, 5, 6], vec![3, 4, 8, 9]] {
            let free = all_but(12, &taken);
            let ranks = Ranks::new(&t, &free);
            let score = |set: &[usize]| {
                set.iter()
                    .enumerate()
                    .fold(Partial::EMPTY, |p, (i, &u)| p.with(&ranks, &set[..i], u))
                    .score()
            };
            for need in 1..free.len() {
                let (exact, greedy) = (exact(&ranks, need), greedy(&ranks, need));
                assert_eq!(greedy.len(), need);
                assert!(
                    score(&exact) >= score(&greedy),
                    "taken {taken:?} need {need}"
                );
                assert_eq!(
                    score(&exact).0,
                    score(&greedy).0,
                    "taken {taken:?} need {need}"
                );
            }
        }
    }

    /// Random links on up to 8 GPUs: the choice is `need` distinct free units, and no other set of free units
    /// scores higher or ties with lower indices (checked against every subset).
    #[test]
    fn the_choice_is_the_first_best_set_on_random_topologies() {
        let mut seed: u64 = 0x5eed;
        let mut next = |below: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(seed >> 33).unwrap() % below
        };
        let ladder = [
            Link::None,
            Link::CrossSocket,
            Link::SameNuma,
            Link::PcieSwitch,
            XGMI,
            Link::Fabric { links: 2, hops: 1 },
        ];
        for round in 0..300 {
            let n = 2 + next(7);
            let links: Vec<Link> = (0..n * n).map(|_| ladder[next(ladder.len())]).collect();
            let t = topology(n, |a, b| links[a * n + b]);
            let free: Vec<u32> = (0..n as u32).filter(|_| next(4) != 0).collect();
            if free.is_empty() {
                continue;
            }
            let need = 1 + next(free.len());
            let picked = choose(&t, &free, need);
            assert_eq!(picked.len(), need, "round {round}");
            assert!(picked.windows(2).all(|w| w[0] < w[1]), "round {round}");
            assert!(picked.iter().all(|u| free.contains(u)), "round {round}");
            let ranks = Ranks::new(&t, &free);
            let score = |set: &[usize]| {
                set.iter()
                    .enumerate()
                    .fold(Partial::EMPTY, |p, (i, &u)| p.with(&ranks, &set[..i], u))
                    .score()
            };
            let local: Vec<usize> = picked
                .iter()
                .map(|u| free.iter().position(|f| f == u).unwrap())
                .collect();
            for mask in 0u32..(1 << free.len()) {
                let set: Vec<usize> = (0..free.len()).filter(|i| mask & (1 << i) != 0).collect();
                if set.len() != need {
                    continue;
                }
                let (theirs, ours) = (score(&set), score(&local));
                assert!(
                    theirs < ours || (theirs == ours && set >= local),
                    "round {round}: {set:?} beats {local:?}"
                );
            }
        }
    }

    #[test]
    fn counts_sets_without_overflow() {
        assert!(sets_at_most(8, 4, 70));
        assert!(!sets_at_most(8, 4, 69));
        assert!(sets_at_most(16, 0, 1));
        assert!(!sets_at_most(128, 64, EXACT_SETS_MAX));
    }
}

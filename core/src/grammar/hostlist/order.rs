//! Sorting and de-duplicating runs of hosts with the results Slurm's `hostlist_sort` and `hostlist_uniq` give.
//!
//! Slurm sorts with glibc's `qsort`, which is a top-down merge sort, under a comparator that is not always a total
//! order (padding compatibility is not transitive). To land on the same order we run the same merge sort instead
//! of `slice::sort_by`, which may also panic on such a comparator. After sorting, Slurm splits overlapping runs into
//! single hosts ("coalesce") and then joins touching runs ("collapse"); `scontrol show hostlistsorted` prints that,
//! duplicates included, so `n[1-3],n[2-5]` sorts to `n[1-2,2-3,3-5]`.

use std::cmp::Ordering;

use super::range::HostRange;

/// Merge sort splitting `n` into `n / 2` and the rest, taking from the left run while `cmp` says "not greater".
fn merge_sort(
    idx: &mut [usize],
    tmp: &mut Vec<usize>,
    cmp: &mut impl FnMut(usize, usize) -> Ordering,
) {
    let n = idx.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    {
        let (left, right) = idx.split_at_mut(n1);
        merge_sort(left, tmp, cmp);
        merge_sort(right, tmp, cmp);
    }
    tmp.clear();
    let (mut i, mut j) = (0, n1);
    while i < n1 && j < n {
        if cmp(idx[i], idx[j]) == Ordering::Greater {
            tmp.push(idx[j]);
            j += 1;
        } else {
            tmp.push(idx[i]);
            i += 1;
        }
    }
    tmp.extend_from_slice(&idx[i..n1]);
    idx[..tmp.len()].copy_from_slice(tmp);
}

/// Sorts runs in Slurm's order (see [`HostRange::cmp_for_sort`]).
fn sort_runs(runs: &mut Vec<HostRange>) {
    let mut idx: Vec<usize> = (0..runs.len()).collect();
    let mut tmp = Vec::with_capacity(runs.len());
    merge_sort(&mut idx, &mut tmp, &mut |a, b| {
        runs[a].cmp_for_sort(&runs[b])
    });
    let mut slots: Vec<Option<HostRange>> = runs.drain(..).map(Some).collect();
    runs.extend(idx.into_iter().filter_map(|i| slots[i].take()));
}

/// The overlap of two sorted neighbours `a` then `b`: Slurm's `hostrange_intersect`, giving the first and last
/// shared number. Runs that merely touch (`1-3`, `3-5` share 3 but `a.hi > b.lo` fails) do not count, as in Slurm.
fn overlap(a: &HostRange, b: &HostRange) -> Option<(u64, u64, usize)> {
    if a.single || b.single || !a.same_prefix(b) || a.hi <= b.lo || a.lo > b.lo {
        return None;
    }
    let width = a.merged_width(b)?;
    Some((b.lo, a.hi.min(b.hi), width))
}

/// Slurm's `hostlist_coalesce`: where neighbours overlap, the shared numbers move out into single-host runs
/// between them, so that every host keeps its multiplicity.
fn coalesce(runs: &mut Vec<HostRange>) {
    let mut i = runs.len().saturating_sub(1);
    while i > 0 {
        let Some((lo, hi, width)) = overlap(&runs[i - 1], &runs[i]) else {
            i -= 1;
            continue;
        };
        let prefix = runs[i - 1].prefix.clone();
        let prev_hi = runs[i - 1].hi;
        runs[i - 1].hi = lo;
        let next = &mut runs[i];
        next.lo = hi;
        if hi < prev_hi {
            next.hi = prev_hi;
        }
        // Between the two shortened runs go `lo` once, every number strictly inside twice, `hi` once: Slurm
        // inserts a number once for "above prev.hi" and once for "below next.lo".
        let mut singles = Vec::new();
        for num in lo..=hi {
            let copies = usize::from(num > lo) + usize::from(num < hi);
            for _ in 0..copies {
                singles.push(HostRange::numbered(prefix.clone(), num, num, width));
            }
        }
        let inserted = singles.len();
        runs.splice(i..i, singles);
        // Pairs right of the shortened `next` were already checked and have not changed.
        i = (i + inserted + 1).min(runs.len() - 1);
    }
}

/// Slurm's `hostlist_collapse`: joins each run into its left neighbour when it continues it, right to left.
fn collapse(runs: &mut Vec<HostRange>) {
    let mut reversed: Vec<HostRange> = Vec::with_capacity(runs.len());
    for mut run in runs.drain(..).rev() {
        if let Some(next) = reversed.last_mut() {
            if let Some(width) = run.continued_by(next) {
                run.hi = next.hi;
                run.width = width;
                *next = run;
                continue;
            }
        }
        reversed.push(run);
    }
    reversed.reverse();
    *runs = reversed;
}

/// Sorts like `hostlist_sort`: duplicates stay, overlapping runs are split, touching runs joined.
pub(crate) fn sort(runs: &mut Vec<HostRange>) {
    if runs.len() <= 1 {
        return;
    }
    sort_runs(runs);
    coalesce(runs);
    collapse(runs);
}

/// Slurm's `hostrange_join`: absorbs `b` into `a` when it repeats or continues it.
fn join(a: &mut HostRange, b: &HostRange) -> bool {
    if !a.same_prefix(b) {
        return false;
    }
    let Some(width) = a.merged_width(b) else {
        return false;
    };
    if a.single && b.single {
        return true;
    }
    let touches = a.hi.checked_add(1) == Some(b.lo);
    let overlaps = a.lo <= b.lo && b.lo <= a.hi;
    if !(touches || overlaps) {
        return false;
    }
    a.hi = a.hi.max(b.hi);
    a.width = width;
    true
}

/// Sorts like `hostlist_uniq`, dropping every repeated host.
pub(crate) fn uniq(runs: &mut Vec<HostRange>) {
    if runs.len() <= 1 {
        return;
    }
    sort_runs(runs);
    let mut kept: Vec<HostRange> = Vec::with_capacity(runs.len());
    for run in runs.drain(..) {
        if let Some(last) = kept.last_mut() {
            if join(last, &run) {
                continue;
            }
        }
        kept.push(run);
    }
    *runs = kept;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(spec: &[(u64, u64)]) -> Vec<HostRange> {
        spec.iter()
            .map(|&(lo, hi)| HostRange::numbered("n", lo, hi, 1))
            .collect()
    }

    fn bounds(runs: &[HostRange]) -> Vec<(u64, u64)> {
        runs.iter().map(|r| (r.lo, r.hi)).collect()
    }

    #[test]
    fn merge_sort_is_stable_and_sorts() {
        let keys = [3, 1, 2, 1, 0];
        let mut idx: Vec<usize> = (0..keys.len()).collect();
        merge_sort(&mut idx, &mut Vec::new(), &mut |a, b| keys[a].cmp(&keys[b]));
        assert_eq!(idx, [4, 1, 3, 2, 0]);
    }

    #[test]
    fn sort_splits_overlaps_into_duplicates() {
        let mut r = runs(&[(2, 5), (1, 3)]);
        sort(&mut r);
        assert_eq!(bounds(&r), [(1, 2), (2, 3), (3, 5)]);
    }

    #[test]
    fn sort_keeps_touching_runs_apart() {
        let mut r = runs(&[(3, 5), (1, 3)]);
        sort(&mut r);
        assert_eq!(bounds(&r), [(1, 3), (3, 5)]);
    }

    #[test]
    fn sort_joins_neighbours() {
        let mut r = runs(&[(4, 6), (1, 3), (7, 7)]);
        sort(&mut r);
        assert_eq!(bounds(&r), [(1, 7)]);
    }

    #[test]
    fn uniq_drops_duplicates() {
        let mut r = runs(&[(2, 5), (1, 3), (5, 5), (9, 9)]);
        r.push(HostRange::single("a"));
        r.push(HostRange::single("a"));
        uniq(&mut r);
        assert_eq!(r.len(), 3);
        assert_eq!(&*r[0].prefix, "a");
        assert_eq!(bounds(&r[1..]), [(1, 5), (9, 9)]);
    }
}

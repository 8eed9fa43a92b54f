//! Partition `OverSubscribe=` and the job's `--exclusive`/`--oversubscribe`, resolved as select/cons_tres does:
//! whether a job takes whole nodes, cores of its own, or cores it shares with up to N jobs. One implementation
//! for the scheduler, the state machine's bookkeeping and what squeue and scontrol show.
//!
//! Sharing is booked as a load per node rather than per core: a job that may share each core with up to N jobs
//! books `1/N` of a core per CPU, in units of [`SLOTS_PER_CORE`] (divisible by every N up to 16, so those books
//! are exact). A node holds either jobs with cores of their own or jobs that share (cons_tres never mixes the
//! two on a node), and the sharing load stays within `cpus × N` jobs per core.

use serde::{Deserialize, Serialize};

use crate::model::job::{Allocation, JobSpec};
use crate::model::records::NodeRecord;

/// A core's share units: the least common multiple of 1..=16, so that `1/N` of a core is a whole number of
/// units for every N a site is likely to configure; a larger N books slightly more than its share.
pub const SLOTS_PER_CORE: u64 = 720_720;

/// A partition's `OverSubscribe=` as the scheduler uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionSharing {
    /// `EXCLUSIVE`: every job gets whole nodes.
    Exclusive,
    /// `NO` (the default): cores are never shared; `--oversubscribe` is ignored.
    No,
    /// `YES:N`: jobs that ask `--oversubscribe` may share each core with up to N jobs.
    Yes(u16),
    /// `FORCE:N`: every job may share each core with up to N jobs.
    Force(u16),
}

impl PartitionSharing {
    /// Parses `PartitionRecord::oversubscribe` (`NO`, `EXCLUSIVE`, `YES:4`, `FORCE:2`; `YES`/`FORCE` alone are 4,
    /// as in slurm.conf). Anything else counts as `NO`, the safe reading.
    pub fn parse(text: &str) -> PartitionSharing {
        // The common case, checked before any allocation or case folding: the scheduler asks per placement.
        if text.is_empty() || text == "NO" {
            return PartitionSharing::No;
        }
        let upper = text.to_ascii_uppercase();
        let (kind, count) = match upper.split_once([':', '(']) {
            Some((kind, rest)) => (kind, rest.trim_end_matches(')').parse::<u16>().ok()),
            None => (upper.as_str(), Some(4)),
        };
        match (kind, count) {
            ("EXCLUSIVE", _) => PartitionSharing::Exclusive,
            ("YES", Some(n)) if n >= 1 => PartitionSharing::Yes(n),
            ("FORCE", Some(n)) if n >= 1 => PartitionSharing::Force(n),
            _ => PartitionSharing::No,
        }
    }
}

/// Whether the submission asked `-s`/`--oversubscribe` (the flag is kept among the job's options).
pub fn asks_oversubscribe(spec: &JobSpec) -> bool {
    spec.options.contains_key("oversubscribe")
}

/// How one job in one partition uses a node's CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobSharing {
    /// All the node's CPUs (`--exclusive`, or an `EXCLUSIVE` partition).
    pub whole_node: bool,
    /// Up to this many jobs per core; 1: the cores are the job's own.
    pub per_core: u16,
}

impl JobSharing {
    pub const OWN_CORES: JobSharing = JobSharing {
        whole_node: false,
        per_core: 1,
    };

    /// cons_tres's resolution: an `EXCLUSIVE` partition gives whole nodes; `FORCE:N` lets every job share (an
    /// `--exclusive` one still gets every CPU of its nodes, shared like the others); `YES:N` only jobs that ask
    /// `--oversubscribe`; `NO` never.
    pub fn resolve(partition: PartitionSharing, spec: &JobSpec) -> JobSharing {
        let per_core = match partition {
            PartitionSharing::Exclusive => {
                return JobSharing {
                    whole_node: true,
                    per_core: 1,
                }
            }
            PartitionSharing::Force(n) => n,
            PartitionSharing::Yes(n) if asks_oversubscribe(spec) && !spec.exclusive => n,
            PartitionSharing::Yes(_) | PartitionSharing::No => 1,
        };
        JobSharing {
            whole_node: spec.exclusive,
            per_core: per_core.max(1),
        }
    }

    pub fn shares(&self) -> bool {
        self.per_core > 1
    }

    /// Whether another job may be placed beside this one on its nodes at all: a whole-node job that does not
    /// share leaves nothing.
    pub fn takes_node(&self) -> bool {
        self.whole_node && !self.shares()
    }
}

/// The share units `cpus` CPUs book when each core may hold up to `per_core` jobs (0 for cores of one's own,
/// which are counted as CPUs instead).
pub fn share_slots(cpus: u32, per_core: u16) -> u64 {
    if per_core <= 1 {
        return 0;
    }
    u64::from(cpus).saturating_mul(SLOTS_PER_CORE.div_ceil(u64::from(per_core)))
}

impl Allocation {
    /// The share units this allocation books on each of its nodes (0 when its cores are its own).
    pub fn share_slots(&self) -> u64 {
        share_slots(self.cpus, self.oversubscribe)
    }

    pub fn shares_cores(&self) -> bool {
        self.oversubscribe > 1
    }
}

/// The share units of a node of `cpus` CPUs.
pub fn node_slots(cpus: u32) -> u64 {
    u64::from(cpus).saturating_mul(SLOTS_PER_CORE)
}

/// Whether `cpus` more CPUs fit on a node of `node_cpus` where jobs with cores of their own hold `own_used` and
/// sharing jobs `slots_used` share units, for a job that shares as `sharing` says. As in cons_tres, a node runs
/// either kind of job, never both: a sharing job needs a node without the other kind, and the reverse.
pub fn cpus_fit(
    own_used: u32,
    slots_used: u64,
    node_cpus: u32,
    cpus: u32,
    sharing: JobSharing,
) -> bool {
    if sharing.shares() {
        own_used == 0
            && cpus <= node_cpus
            && slots_used.saturating_add(share_slots(cpus, sharing.per_core))
                <= node_slots(node_cpus)
    } else {
        own_used + cpus <= node_cpus && !(sharing.whole_node && own_used > 0) && slots_used == 0
    }
}

impl NodeRecord {
    /// Whether the allocation's CPUs fit here now (the plan-apply check).
    pub fn cpus_fit(&self, alloc: &Allocation) -> bool {
        let sharing = JobSharing {
            whole_node: false,
            per_core: alloc.oversubscribe.max(1),
        };
        cpus_fit(
            self.alloc_cpus,
            self.alloc_share_slots,
            self.cpus,
            alloc.cpus,
            sharing,
        )
    }

    /// Books the allocation's CPUs: as cores of its own, or as a share of cores.
    pub fn book_cpus(&mut self, alloc: &Allocation) {
        if alloc.shares_cores() {
            self.alloc_shared_cpus = self.alloc_shared_cpus.saturating_add(alloc.cpus);
            self.alloc_share_slots = self.alloc_share_slots.saturating_add(alloc.share_slots());
        } else {
            self.alloc_cpus += alloc.cpus;
        }
    }

    /// Gives back what [`Self::book_cpus`] booked.
    pub fn release_cpus(&mut self, alloc: &Allocation) {
        if alloc.shares_cores() {
            self.alloc_shared_cpus = self.alloc_shared_cpus.saturating_sub(alloc.cpus);
            self.alloc_share_slots = self.alloc_share_slots.saturating_sub(alloc.share_slots());
        } else {
            self.alloc_cpus = self.alloc_cpus.saturating_sub(alloc.cpus);
        }
    }
}

/// squeue `%h` / `scontrol show job` `OverSubscribe=`: what the partition decided when it decided (`resolved`),
/// else the job's own request: `YES` for a job that may share, `NO` for one that takes whole nodes, else `OK`.
pub fn label(spec: &JobSpec, resolved: Option<ResolvedSharing>) -> &'static str {
    match resolved {
        Some(ResolvedSharing::Shares) => "YES",
        Some(ResolvedSharing::WholeNode) => "NO",
        None if asks_oversubscribe(spec) => "YES",
        None if spec.exclusive => "NO",
        None => "OK",
    }
}

/// What slurmctld records of a job's sharing when it judges it against its partition (at submission for an
/// `EXCLUSIVE` partition, at each scheduling attempt otherwise), in the job record's persisted form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResolvedSharing {
    /// Whole nodes, nothing shared.
    WholeNode,
    /// May share cores.
    Shares,
}

impl ResolvedSharing {
    /// What of `sharing` Slurm keeps on the job: only the outcomes it records (whole nodes from the partition,
    /// sharing forced by it); `None` leaves the job's own request to speak.
    pub fn of(partition: PartitionSharing, sharing: JobSharing) -> Option<ResolvedSharing> {
        match partition {
            PartitionSharing::Exclusive => Some(ResolvedSharing::WholeNode),
            PartitionSharing::Force(n) if n > 1 && sharing.shares() => {
                Some(ResolvedSharing::Shares)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(exclusive: bool, oversubscribe: bool) -> JobSpec {
        let mut spec = JobSpec {
            exclusive,
            ..JobSpec::default()
        };
        if oversubscribe {
            spec.options
                .insert("oversubscribe".to_string(), String::new());
        }
        spec
    }

    #[test]
    fn parses_what_partitions_hold() {
        use PartitionSharing as P;
        assert_eq!(P::parse("NO"), P::No);
        assert_eq!(P::parse(""), P::No);
        assert_eq!(P::parse("EXCLUSIVE"), P::Exclusive);
        assert_eq!(P::parse("YES:2"), P::Yes(2));
        assert_eq!(P::parse("YES"), P::Yes(4));
        assert_eq!(P::parse("FORCE:3"), P::Force(3));
        assert_eq!(P::parse("force"), P::Force(4));
        // The form the controller used to write (`YES(4)`) still reads.
        assert_eq!(P::parse("YES(4)"), P::Yes(4));
        assert_eq!(P::parse("FORCE:x"), P::No);
    }

    #[test]
    fn resolves_as_cons_tres() {
        use PartitionSharing as P;
        let plain = spec(false, false);
        let asks = spec(false, true);
        let excl = spec(true, false);
        assert_eq!(JobSharing::resolve(P::No, &asks), JobSharing::OWN_CORES);
        assert_eq!(
            JobSharing::resolve(P::Yes(3), &plain),
            JobSharing::OWN_CORES
        );
        assert_eq!(JobSharing::resolve(P::Yes(3), &asks).per_core, 3);
        assert_eq!(JobSharing::resolve(P::Force(2), &plain).per_core, 2);
        let forced_excl = JobSharing::resolve(P::Force(2), &excl);
        assert!(forced_excl.whole_node && forced_excl.shares() && !forced_excl.takes_node());
        assert!(JobSharing::resolve(P::Exclusive, &asks).takes_node());
        assert!(JobSharing::resolve(P::No, &excl).takes_node());
        assert_eq!(
            JobSharing::resolve(P::Force(1), &plain),
            JobSharing::OWN_CORES
        );
    }

    #[test]
    fn a_node_runs_one_kind_of_job() {
        let own = JobSharing::OWN_CORES;
        let two = JobSharing {
            whole_node: false,
            per_core: 2,
        };
        let whole = JobSharing {
            whole_node: true,
            per_core: 1,
        };
        assert!(cpus_fit(1, 0, 2, 1, own));
        assert!(!cpus_fit(2, 0, 2, 1, own));
        assert!(!cpus_fit(0, share_slots(1, 2), 2, 1, own));
        assert!(!cpus_fit(1, 0, 2, 1, two));
        // Four one-CPU jobs on two cores at two per core, not five.
        assert!(cpus_fit(0, share_slots(3, 2), 2, 1, two));
        assert!(!cpus_fit(0, share_slots(4, 2), 2, 1, two));
        assert!(!cpus_fit(0, 0, 2, 3, two));
        assert!(cpus_fit(0, 0, 2, 2, whole));
        assert!(!cpus_fit(1, 0, 2, 2, whole));
    }

    #[test]
    fn share_units_are_exact_up_to_sixteen() {
        for n in 2..=16u16 {
            assert_eq!(share_slots(3, n) * u64::from(n), node_slots(3), "N={n}");
        }
        assert_eq!(share_slots(4, 1), 0);
        // Beyond 16 a job books a little more than its share, never less.
        assert!(share_slots(1, 17) * 17 >= SLOTS_PER_CORE);
    }

    #[test]
    fn labels_follow_slurm() {
        use PartitionSharing as P;
        let label_in = |p, s: &JobSpec| label(s, ResolvedSharing::of(p, JobSharing::resolve(p, s)));
        let plain = spec(false, false);
        let asks = spec(false, true);
        let excl = spec(true, false);
        assert_eq!(label(&plain, None), "OK");
        assert_eq!(label(&asks, None), "YES");
        assert_eq!(label(&excl, None), "NO");
        assert_eq!(label_in(P::No, &asks), "YES");
        assert_eq!(label_in(P::Force(2), &plain), "YES");
        assert_eq!(label_in(P::Force(2), &excl), "YES");
        assert_eq!(label_in(P::Force(1), &plain), "OK");
        assert_eq!(label_in(P::Exclusive, &asks), "NO");
        assert_eq!(label_in(P::Exclusive, &plain), "NO");
        assert_eq!(label_in(P::Yes(2), &excl), "NO");
        assert_eq!(label_in(P::Yes(2), &asks), "YES");
    }
}

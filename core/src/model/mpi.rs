//! A step's MPI plugin (srun `--mpi`, `SLURM_MPI_TYPE`, slurm.conf `MpiDefault`): which one it is, which Spur has,
//! how `srun --mpi=list` shows them (in the order of Slurm's plugin directory on Debian), and the PMI process mapping the PMI-2 server hands out (docs/mpi.md).

use serde::{Deserialize, Serialize};

use crate::model::step_layout::Distribution;

/// The MPI plugin a step's tasks are started with. Carried in each node's launch (append-only: new plugins go at
/// the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MpiType {
    /// `none`: nothing set up (Slurm's default).
    #[default]
    None,
    /// `pmi2`: a PMI-2 (and PMI-1) server on each task's `PMI_FD`.
    Pmi2,
    /// `pmix`: a PMIx server in each node's supervisor (the installed PMIx, v4 here).
    Pmix,
    /// `pmix_v4`: the same server, named by its PMIx version.
    PmixV4,
    /// `cray_shasta`: Cray PALS's application file (`PALS_APINFO`) and `PALS_*` variables, no server
    /// ([`crate::model::pals_apinfo`]).
    CrayShasta,
}

/// The plugins Spur has, in the order `srun --mpi=list` shows them (Slurm lists what its plugin directory holds).
pub const AVAILABLE: [MpiType; 4] = [
    MpiType::Pmix,
    MpiType::None,
    MpiType::CrayShasta,
    MpiType::Pmi2,
];

impl MpiType {
    /// The plugin a name (`--mpi`, `SLURM_MPI_TYPE`, `MpiDefault`) selects; `None` for one Spur does not have.
    /// Slurm accepts an `mpi/` prefix (slurm.conf spells `MpiDefault=mpi/pmi2` that way too).
    pub fn parse(name: &str) -> Option<MpiType> {
        match name.strip_prefix("mpi/").unwrap_or(name) {
            "none" => Some(MpiType::None),
            "pmi2" => Some(MpiType::Pmi2),
            "pmix" => Some(MpiType::Pmix),
            "pmix_v4" => Some(MpiType::PmixV4),
            "cray_shasta" => Some(MpiType::CrayShasta),
            _ => None,
        }
    }

    /// The name `SLURM_MPI_TYPE` shows.
    pub fn name(self) -> &'static str {
        match self {
            MpiType::None => "none",
            MpiType::Pmi2 => "pmi2",
            MpiType::Pmix => "pmix",
            MpiType::PmixV4 => "pmix_v4",
            MpiType::CrayShasta => "cray_shasta",
        }
    }

    /// Whether the step's supervisors host a PMIx server.
    pub fn is_pmix(self) -> bool {
        matches!(self, MpiType::Pmix | MpiType::PmixV4)
    }
}

/// What `srun --mpi=list` prints (on stderr, as Slurm's `info()` lines): the plugin types, then the versioned
/// PMIx plugins.
pub fn list_text() -> String {
    let mut text = String::from("MPI plugin types are...\n");
    for plugin in AVAILABLE {
        text.push('\t');
        text.push_str(plugin.name());
        text.push('\n');
    }
    text.push_str("specific pmix plugin versions available: pmix_v4\n");
    text
}

/// `PMI_process_mapping` for a step laid out as `node_ranks` (each node's ranks, in the step's node order), in
/// Slurm's `(vector,(first_node,node_count,tasks_each),...)` form: block layouts group neighbouring nodes with
/// equal task counts, cyclic and plane layouts describe each round of the deal. MPICH uses it to find which ranks
/// share a node.
pub fn process_mapping(node_ranks: &[Vec<u32>], distribution: Distribution) -> String {
    let mut mapping = String::from("(vector");
    match distribution {
        Distribution::Block => {
            let mut start = 0usize;
            while let Some(first) = node_ranks.get(start) {
                let count = first.len();
                let run = node_ranks
                    .iter()
                    .skip(start)
                    .take_while(|r| r.len() == count)
                    .count();
                mapping.push_str(&format!(",({start},{run},{count})"));
                start = start.saturating_add(run.max(1));
            }
        }
        Distribution::Cyclic | Distribution::Plane(_) => dealt_rounds(node_ranks, &mut mapping),
    }
    mapping.push(')');
    mapping
}

/// Cyclic and plane layouts: walks the ranks in order, each entry one stretch of neighbouring nodes that take the
/// next `block` ranks each in turn.
fn dealt_rounds(node_ranks: &[Vec<u32>], mapping: &mut String) {
    let total: usize = node_ranks.iter().map(Vec::len).sum();
    let mut taken = vec![0usize; node_ranks.len()];
    let mut next: u32 = 0;
    let next_of = |node: usize, taken: &[usize]| -> Option<u32> {
        node_ranks.get(node)?.get(*taken.get(node)?).copied()
    };
    let mut guard = 0usize;
    while (next as usize) < total && guard <= total {
        guard += 1;
        let Some(start) = (0..node_ranks.len()).find(|&n| next_of(n, &taken) == Some(next)) else {
            return;
        };
        // The block: how many consecutive ranks the first node of the stretch holds from here.
        let mut block = 0usize;
        while next_of(start, &taken) == Some(next) {
            if let Some(t) = taken.get_mut(start) {
                *t += 1;
            }
            block += 1;
            next = next.saturating_add(1);
        }
        let mut end = start + 1;
        while end < node_ranks.len() {
            let fits = (0..block).all(|i| {
                node_ranks
                    .get(end)
                    .and_then(|r| r.get(taken.get(end).copied().unwrap_or(0) + i))
                    == Some(&next.saturating_add(i as u32))
            });
            if !fits {
                break;
            }
            if let Some(t) = taken.get_mut(end) {
                *t += block;
            }
            next = next.saturating_add(block as u32);
            end += 1;
        }
        mapping.push_str(&format!(",({start},{},{block})", end - start));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::step_layout::StepLayout;

    #[test]
    fn names_parse_both_ways_and_unknown_ones_are_none() {
        for plugin in [
            MpiType::None,
            MpiType::Pmi2,
            MpiType::Pmix,
            MpiType::PmixV4,
            MpiType::CrayShasta,
        ] {
            assert_eq!(MpiType::parse(plugin.name()), Some(plugin));
        }
        assert_eq!(MpiType::parse("mpi/pmi2"), Some(MpiType::Pmi2));
        assert_eq!(MpiType::parse("openmpi"), None);
        assert_eq!(MpiType::parse("PMI2"), None);
        assert!(MpiType::PmixV4.is_pmix() && !MpiType::Pmi2.is_pmix());
    }

    #[test]
    fn the_list_names_what_spur_has_in_slurms_format() {
        assert_eq!(
            list_text(),
            "MPI plugin types are...\n\tpmix\n\tnone\n\tcray_shasta\n\tpmi2\nspecific pmix plugin versions available: pmix_v4\n"
        );
    }

    #[test]
    fn process_mappings_match_slurms() {
        let block = StepLayout::new(6, 3, None, Distribution::Block);
        assert_eq!(
            process_mapping(&block.node_ranks, Distribution::Block),
            "(vector,(0,3,2))"
        );
        let uneven = StepLayout::new(5, 3, None, Distribution::Block);
        assert_eq!(
            process_mapping(&uneven.node_ranks, Distribution::Block),
            "(vector,(0,2,2),(2,1,1))"
        );
        let cyclic = StepLayout::new(6, 3, None, Distribution::Cyclic);
        assert_eq!(
            process_mapping(&cyclic.node_ranks, Distribution::Cyclic),
            "(vector,(0,3,1),(0,3,1))"
        );
        let plane = vec![vec![0, 1, 4, 5], vec![2, 3]];
        assert_eq!(
            process_mapping(&plane, Distribution::Plane(2)),
            "(vector,(0,2,2),(0,1,2))"
        );
        assert_eq!(
            process_mapping(&[vec![0, 1]], Distribution::Block),
            "(vector,(0,1,2))"
        );
        assert_eq!(process_mapping(&[], Distribution::Block), "(vector)");
    }
}

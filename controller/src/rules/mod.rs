//! The rules the state machine and the scheduler must agree on, as pure functions of the state: whether a request
//! could ever run here ([`validate_request`], [`immediate_check`]), what keeps a pending job waiting whatever the
//! nodes have ([`gate`]), where a job fits and whether an allocation still fits ([`placement`],
//! [`allocation_fits`], with [`reservations`] and [`switches`]), what its dependencies say ([`dependency`]) and
//! what its priority is ([`priority`]).
//!
//! Both sides import this module: the state machine checks submissions and re-checks every start a plan asks
//! for, and the scheduler's pass ([`crate::scheduler`]) uses the same checks to decide. The rules read the state
//! ([`crate::state::ClusterState`]) and never change it, and never import the scheduler: the state machine must
//! not depend on how passes are ordered or planned (a test below keeps it that way). What belongs here is a check
//! or a computation both sides need; the queue's order, backfill planning, preemption and the plan itself belong
//! to the scheduler, and applying commands to the state machine.

pub mod dependency;
mod gate;
mod gpu_choice;
pub(crate) mod placement;
pub mod priority;
mod request;
pub(crate) mod reservations;
mod shards;
pub(crate) mod switches;
pub(crate) mod unit_bits;

pub use dependency::{dependency_status, describe as describe_dependency, DependencyStatus};
pub(crate) use gate::{gate, ArrayCounts};
pub use placement::{allocation_fits, job_cpus, job_mem_mb, place, sharing_of};
pub use request::{
    array_task_ids, enforce_part_limits, immediate_check, partition_limit, pending_node_estimate,
    refusal_uses_job_id, trial_placement, validate_immediate, validate_request, PartitionLimit,
};

#[cfg(test)]
mod tests {
    /// The state machine must not import the scheduler (the import loop issue 30 broke): what both need lives in
    /// this module. Test code may still drive passes through `scheduler::scenario`.
    #[test]
    fn state_machine_sources_do_not_import_the_scheduler() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/state");
        let mut offenders = Vec::new();
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if !name.ends_with(".rs") || name.ends_with("tests.rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                // Inline test modules come last in a file (`#[cfg(test)] mod tests`); only the code above counts.
                let code = text
                    .split("#[cfg(test)]\nmod tests")
                    .next()
                    .unwrap_or_default();
                let lines: Vec<&str> = code
                    .lines()
                    .map(|line| line.split("//").next().unwrap_or_default())
                    .collect();
                // A path (`crate::scheduler::x`, `super::super::scheduler::x`), or a `use` naming the module
                // (`use crate::{scheduler, state}`, over several lines).
                let mut in_use = false;
                for (n, line) in lines.iter().enumerate() {
                    let trimmed = line.trim_start();
                    in_use |= trimmed.starts_with("use ") || trimmed.contains(" use ");
                    let names_it = line.contains("scheduler::")
                        || (in_use
                            && line
                                .split(|c: char| !c.is_alphanumeric() && c != '_')
                                .any(|w| w == "scheduler"));
                    if names_it {
                        offenders.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                    }
                    in_use &= !line.contains(';');
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "the state machine imports the scheduler (move what both need to crate::rules):\n{}",
            offenders.join("\n")
        );
    }
}

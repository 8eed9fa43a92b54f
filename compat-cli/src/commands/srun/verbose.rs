//! What srun says under `-v` about its options, allocation and step, as Slurm 22.05's srun prints it at verbose
//! level: the option dump, the allocation's nodes and CPUs, each node's launch and start, each task's end.

use spur_core::grammar::options::OptionSet;
use spur_core::model::job::JobRecord;
use spur_core::model::step_exit::TaskEnd;

/// The option dump, when `-v` was given.
pub fn option_dump(set: &OptionSet) {
    if set.verbosity() == 0 {
        return;
    }
    for line in spur_core::format::option_dump::option_dump(set) {
        eprintln!("srun: {line}");
    }
}

/// `jobid 7: nodes(2):`vm[1-2]', cpu counts: 2(x2)`: the allocation the step runs in.
pub fn allocation_line(job: &JobRecord) -> String {
    let (nodes, cpus) = job.alloc.as_ref().map_or((Vec::new(), 0), |alloc| {
        (alloc.node_names.clone(), alloc.cpus)
    });
    format!(
        "jobid {}: nodes({}):`{}', cpu counts: {}(x{})",
        job.job_id,
        nodes.len(),
        spur_core::grammar::hostlist::compress(&nodes),
        cpus,
        nodes.len()
    )
}

/// The lines before the step's tasks start: its binding and, node by node, which ranks it launches there.
pub fn launching(step: &str, cpu_bind: Option<&str>, nodes: &[(&str, &[u32])]) {
    eprintln!(
        "srun: launch/slurm: launch_p_step_launch: CpuBindType={}",
        cpu_bind.unwrap_or("(null type)")
    );
    for (node, ranks) in nodes {
        eprintln!(
            "srun: launching StepId={step} on host {node}, {} tasks: {}",
            ranks.len(),
            rank_list(ranks)
        );
    }
    eprintln!("srun: route/default: init: route default plugin loaded");
}

/// A node's tasks are running.
pub fn tasks_started(node: &str, count: usize) {
    eprintln!("srun: launch/slurm: _task_start: Node {node}, {count} tasks started");
}

/// srun's notice of tasks of one node that ended the same way, before its `node: tasks: ...` line.
pub fn exit_notification(step: &str, ranks: &[u32], raw_status: i32) {
    eprintln!(
        "srun: launch/slurm: _task_finish: Received task exit notification for {} task{} of StepId={step} \
         (status=0x{:04x}).",
        ranks.len(),
        if ranks.len() == 1 { "" } else { "s" },
        raw_status
    );
}

/// `node: task 0: Completed` for tasks that ended with status 0 (other ends have their error line).
pub fn completed(node: &str, ranks: &[u32], end: TaskEnd) {
    if end == TaskEnd::Exited(0) {
        let (word, list) = match ranks {
            [one] => ("task", one.to_string()),
            _ => ("tasks", rank_ranges(ranks)),
        };
        eprintln!("srun: launch/slurm: _task_finish: {node}: {word} {list}: Completed");
    }
}

/// `node: task 0: Killed` for tasks that ended by a signal after srun itself ended the step (Ctrl-C).
pub fn killed(node: &str, ranks: &[u32], end: TaskEnd) {
    let (word, list) = match ranks {
        [one] => ("task", one.to_string()),
        _ => ("tasks", rank_ranges(ranks)),
    };
    eprintln!(
        "srun: launch/slurm: _task_finish: {node}: {word} {list}: {}",
        end.describe()
    );
}

/// Ranks as Slurm's hostlist of numbers: `0`, `[0-1]`, `[0,2-3]`.
fn rank_list(ranks: &[u32]) -> String {
    match ranks {
        [one] => one.to_string(),
        _ => format!("[{}]", rank_ranges(ranks)),
    }
}

fn rank_ranges(ranks: &[u32]) -> String {
    spur_core::model::step_exit::rank_list(ranks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_print_as_slurms_hostlists_of_numbers() {
        assert_eq!(rank_list(&[0]), "0");
        assert_eq!(rank_list(&[0, 1]), "[0-1]");
        assert_eq!(rank_list(&[0, 2, 3]), "[0,2-3]");
        assert_eq!(rank_ranges(&[3, 1, 2]), "1-3");
    }
}

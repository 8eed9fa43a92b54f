//! Job steps as the controller records them: `srun` inside an allocation (or the step `srun` creates with its own
//! job) registers a numbered step, runs it, and reports how it ended. squeue `-s`, `scontrol show step` and the
//! job's `DerivedExitCode` read these records.

use serde::{Deserialize, Serialize};

use crate::model::job::EpochSecs;
use crate::model::states::JobBaseState;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    pub step_id: u32,
    /// The step's name (`--job-name` of the srun, else the command's base name).
    pub name: String,
    /// `Running` while it runs, then `Completed`, `Failed` or `Cancelled`.
    pub state: JobBaseState,
    pub start_time: EpochSecs,
    #[serde(default)]
    pub end_time: Option<EpochSecs>,
    /// The nodes its tasks run on, as a hostlist expression.
    pub node_list: String,
    pub num_nodes: u32,
    pub num_tasks: u32,
    pub num_cpus: u32,
    /// The step's time limit in minutes (`--time` of the srun); `None` for the job's.
    #[serde(default)]
    pub time_limit_min: Option<u32>,
    #[serde(default)]
    pub exit_code: u32,
    #[serde(default)]
    pub exit_signal: u32,
    /// The srun that runs it (`SrunHost:Pid=`).
    #[serde(default)]
    pub srun_host: String,
    #[serde(default)]
    pub srun_pid: u32,
    /// The ranks each node of `node_list` (in its expanded order) runs, for `sattach --layout`; empty for records
    /// made before it was kept (the tasks are then taken as laid out in blocks).
    #[serde(default)]
    pub node_ranks: Vec<Vec<u32>>,
    /// What the step's tasks used (`jobacct_gather`), reported with the step's end; `None` while it runs and for
    /// steps whose end came without it.
    #[serde(default)]
    pub usage: Option<Box<crate::model::step_acct::StepAcct>>,
}

impl StepRecord {
    pub fn is_running(&self) -> bool {
        self.state == JobBaseState::Running
    }

    /// The state a step ends in from its worst task: signalled or non-zero is FAILED, as Slurm records it.
    pub fn end_state(exit_code: u32, exit_signal: u32) -> JobBaseState {
        match (exit_code, exit_signal) {
            (0, 0) => JobBaseState::Completed,
            (_, crate::model::step_exit::OUT_OF_MEMORY_SIGNAL) => JobBaseState::OutOfMemory,
            _ => JobBaseState::Failed,
        }
    }
}

impl StepRecord {
    /// Each node of the step with the ranks it runs, in the order of `node_list`.
    pub fn layout(&self) -> Vec<(String, Vec<u32>)> {
        let nodes = crate::grammar::hostlist::expand(&self.node_list).unwrap_or_default();
        if self.node_ranks.len() == nodes.len() {
            return nodes
                .into_iter()
                .zip(self.node_ranks.iter().cloned())
                .collect();
        }
        let count = u32::try_from(nodes.len()).unwrap_or(u32::MAX).max(1);
        let (each, extra) = (self.num_tasks / count, self.num_tasks % count);
        let mut next = 0;
        nodes
            .into_iter()
            .enumerate()
            .map(|(i, node)| {
                let share = each + u32::from((i as u32) < extra);
                let ranks = (next..next + share).collect();
                next += share;
                (node, ranks)
            })
            .collect()
    }

    /// What `sattach --layout` prints for step `job_id`.`step_id`, as Slurm 22.05 lays it out.
    pub fn layout_report(&self) -> String {
        let layout = self.layout();
        let mut out = format!(
            "Job step layout:\n\t{} tasks, {} nodes ({})\n\n",
            self.num_tasks,
            layout.len(),
            self.node_list
        );
        for (index, (node, ranks)) in layout.iter().enumerate() {
            out.push_str(&format!(
                "\tNode {index} ({node}), {} task(s): ",
                ranks.len()
            ));
            for rank in ranks {
                out.push_str(&format!("{rank} "));
            }
            out.push('\n');
        }
        out
    }
}

/// `DerivedExitCode`: the highest exit code any step of the job returned, with the signal of that step.
pub fn derived_exit(steps: &[StepRecord]) -> (u32, u32) {
    steps
        .iter()
        .filter(|s| !s.is_running())
        .map(|s| (s.exit_code, s.exit_signal))
        .max()
        .unwrap_or((0, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ended(step_id: u32, exit_code: u32, exit_signal: u32) -> StepRecord {
        StepRecord {
            step_id,
            name: "s".into(),
            state: StepRecord::end_state(exit_code, exit_signal),
            start_time: 0,
            end_time: Some(1),
            node_list: "n1".into(),
            num_nodes: 1,
            num_tasks: 1,
            num_cpus: 1,
            time_limit_min: None,
            exit_code,
            exit_signal,
            srun_host: String::new(),
            srun_pid: 0,
            node_ranks: Vec::new(),
            usage: None,
        }
    }

    #[test]
    fn derived_exit_is_the_highest_step_exit() {
        assert_eq!(derived_exit(&[]), (0, 0));
        assert_eq!(derived_exit(&[ended(0, 1, 0), ended(1, 0, 0)]), (1, 0));
        assert_eq!(derived_exit(&[ended(0, 0, 9), ended(1, 2, 0)]), (2, 0));
        assert_eq!(ended(0, 0, 9).state, JobBaseState::Failed);
    }

    #[test]
    fn layout_report_is_slurms() {
        let mut step = ended(0, 0, 0);
        step.node_list = "vm".into();
        step.num_tasks = 2;
        assert_eq!(
            step.layout_report(),
            "Job step layout:\n\t2 tasks, 1 nodes (vm)\n\n\tNode 0 (vm), 2 task(s): 0 1 \n"
        );
        step.node_list = "n[1-2]".into();
        step.num_tasks = 3;
        assert_eq!(
            step.layout(),
            [("n1".to_string(), vec![0, 1]), ("n2".to_string(), vec![2])]
        );
        step.node_ranks = vec![vec![0, 2], vec![1]];
        assert_eq!(
            step.layout_report(),
            "Job step layout:\n\t3 tasks, 2 nodes (n[1-2])\n\n\tNode 0 (n1), 2 task(s): 0 2 \n\tNode 1 (n2), 1 task(s): 1 \n"
        );
    }
}

//! Job steps as the controller records them: `srun` inside an allocation (or the step `srun` creates with its own
//! job) registers a numbered step, runs it, and reports how it ended. squeue `-s`, `scontrol show step` and the
//! job's `DerivedExitCode` read these records.

use serde::{Deserialize, Serialize};

use crate::job::EpochSecs;
use crate::states::JobBaseState;

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
}

impl StepRecord {
    pub fn is_running(&self) -> bool {
        self.state == JobBaseState::Running
    }

    /// The state a step ends in from its worst task: signalled or non-zero is FAILED, as Slurm records it.
    pub fn end_state(exit_code: u32, exit_signal: u32) -> JobBaseState {
        if exit_code == 0 && exit_signal == 0 {
            JobBaseState::Completed
        } else {
            JobBaseState::Failed
        }
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
        }
    }

    #[test]
    fn derived_exit_is_the_highest_step_exit() {
        assert_eq!(derived_exit(&[]), (0, 0));
        assert_eq!(derived_exit(&[ended(0, 1, 0), ended(1, 0, 0)]), (1, 0));
        assert_eq!(derived_exit(&[ended(0, 0, 9), ended(1, 2, 0)]), (2, 0));
        assert_eq!(ended(0, 0, 9).state, JobBaseState::Failed);
    }
}

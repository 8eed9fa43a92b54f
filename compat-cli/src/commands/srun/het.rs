//! srun inside a heterogeneous job: which components a step asks for (`--het-group`, `:`), the step as one step
//! of the leader over those components' nodes ([`spur_core::model::het_step`]), and what its tasks see.

use spur_core::grammar::options::{OptId, OptionSet};
use spur_core::model::het_step::{GroupRequest, HetStepPlan};
use spur_core::model::job::JobRecord;

use super::{exit_code, Srun, StepShape};

/// What a heterogeneous job's step shows its tasks and where they run (see [`spur_core::model::het_step`]).
pub(super) struct HetView {
    /// The allocation as the tasks' `SLURM_JOB_*` describe it: the leader's id, the step's components' nodes.
    pub(super) view: JobRecord,
    pub(super) plan: HetStepPlan,
    /// Several components: the per-node CPU and task counts differ between them.
    pub(super) spans_components: bool,
}

impl Srun<'_> {
    /// A step in some components of the heterogeneous job whose leader `job_text` names: one step of the
    /// leader (which numbers every step of the job), its tasks on the chosen components' nodes.
    pub(super) fn within_het_job(mut self, job_text: &str, requests: &[GroupRequest]) -> u8 {
        let leader_id = job_text
            .split(['_', '.'])
            .next()
            .and_then(|id| id.trim().parse::<u32>().ok())
            .unwrap_or(0);
        let leader = match self.confirm(leader_id) {
            Ok(job) => job,
            Err(errno) => {
                eprintln!(
                    "srun: error: Unable to confirm allocation for job {leader_id}: {}",
                    errno.text()
                );
                return 1;
            }
        };
        let Some(membership) = leader.het.clone() else {
            // Not a heterogeneous job: Slurm's answers to a component it does not have.
            let highest = requests.iter().map(|r| r.group).max().unwrap_or(0);
            if highest > 0 {
                eprintln!("srun: error: Requested het-group offset exceeds highest hetjob index ({highest} > 0)");
            } else {
                eprintln!("srun: error: No directives to start application on any available hetjob components");
            }
            return 1;
        };
        let mut components = vec![leader.clone()];
        for id in membership.component_ids().skip(1) {
            match self.confirm(id) {
                Ok(job) => components.push(job),
                Err(errno) => {
                    eprintln!(
                        "srun: error: Unable to create step for job {leader_id}: {}",
                        errno.text()
                    );
                    return 1;
                }
            }
        }
        let plan = match spur_core::model::het_step::plan(&components, requests) {
            Ok(plan) => plan,
            Err(line) => {
                eprintln!("srun: error: {line}");
                return 1;
            }
        };
        let spans_components = requests.len() > 1;
        let mut view = match requests {
            [only] => components
                .get(only.group as usize)
                .cloned()
                .unwrap_or_else(|| leader.clone()),
            _ => leader.clone(),
        };
        view.job_id = leader_id;
        if spans_components {
            if let Some(alloc) = view.alloc.as_mut() {
                alloc.node_names = plan.nodes.clone();
            }
            view.spec.ntasks = Some(plan.ntasks);
        }
        let shape = StepShape {
            nodes: plan.nodes.clone(),
            ntasks: plan.ntasks,
        };
        let num_cpus = plan.cpus_on_node.iter().sum::<u32>().max(1);
        self.het = Some(HetView {
            view,
            plan,
            spans_components,
        });
        let (step_id, outcome) = match self.run(
            &leader,
            &shape,
            num_cpus,
            &super::StepDevices::default(),
            Some("block"),
            true,
        ) {
            Ok(ran) => ran,
            Err(code) => return code,
        };
        self.complete_step(leader_id, step_id, &outcome);
        exit_code(outcome.exit_code)
    }
}

/// The components a step inside a heterogeneous job asks for: one per `:`-separated part (component `k` of the
/// command line runs in het group `k`, or in the one its own `--het-group` names), or every group of
/// `--het-group`; `None` for a plain step. A component without a program takes the next one's, as in Slurm.
pub(super) fn het_requests(
    parsed: &spur_core::grammar::options::Parsed,
) -> Result<Option<Vec<GroupRequest>>, Vec<String>> {
    // Only a count given here: the job's SLURM_NTASKS (the leader's) is no count of the other components.
    let ntasks = |set: &OptionSet| {
        matches!(
            set.source(OptId::Ntasks),
            Some(spur_core::grammar::options::Source::CommandLine { .. })
        )
        .then(|| set.value(OptId::Ntasks).and_then(|v| v.trim().parse().ok()))
        .flatten()
    };
    let mut commands: Vec<Vec<String>> = parsed
        .components
        .iter()
        .map(|c| c.command.clone())
        .collect();
    for i in (0..commands.len().saturating_sub(1)).rev() {
        if commands[i].is_empty() {
            commands[i] = commands[i + 1].clone();
        }
    }
    if parsed.components.len() > 1 {
        let mut requests = Vec::new();
        for (k, (component, argv)) in parsed.components.iter().zip(commands).enumerate() {
            let groups = match component.options.value(OptId::HetGroup) {
                Some(text) => spur_core::model::het_step::parse_groups(text)?,
                None => vec![u32::try_from(k).unwrap_or(u32::MAX)],
            };
            for group in groups {
                requests.push(GroupRequest {
                    group,
                    ntasks: ntasks(&component.options),
                    argv: argv.clone(),
                });
            }
        }
        return Ok(Some(requests));
    }
    let Some(component) = parsed.components.first() else {
        return Ok(None);
    };
    let Some(text) = component.options.value(OptId::HetGroup) else {
        return Ok(None);
    };
    let groups = spur_core::model::het_step::parse_groups(text)?;
    Ok(Some(
        groups
            .into_iter()
            .map(|group| GroupRequest {
                group,
                ntasks: ntasks(&component.options),
                argv: component.command.clone(),
            })
            .collect(),
    ))
}

/// A heterogeneous job's step keeps the job's `_PACK_GROUP_0` value (a plain step's describes its own
/// allocation), and a spanning step's tasks see the counts of the nodes they are on, which differ between
/// components.
pub(super) fn het_task_env(
    mut env: Vec<(String, String)>,
    het: &HetView,
    node: &str,
    inherited: &[(String, String)],
) -> Vec<(String, String)> {
    const GROUP_0_CPUS: &str = "SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0";
    if let Some((_, value)) = inherited.iter().find(|(k, _)| k == GROUP_0_CPUS) {
        if let Some(slot) = env.iter_mut().find(|(k, _)| k == GROUP_0_CPUS) {
            slot.1 = value.clone();
        }
    }
    if !het.spans_components {
        return env;
    }
    let index = het.plan.nodes.iter().position(|n| n == node).unwrap_or(0);
    let cpus = het.plan.cpus_on_node.get(index).copied().unwrap_or(0);
    for (key, value) in [
        ("SLURM_JOB_CPUS_PER_NODE", het.plan.cpus_per_node_text()),
        (
            "SLURM_TASKS_PER_NODE",
            het.plan.layout.tasks_per_node_text(),
        ),
        ("SLURM_CPUS_ON_NODE", cpus.to_string()),
    ] {
        if let Some(slot) = env.iter_mut().find(|(k, _)| k == key) {
            slot.1 = value;
        }
    }
    env
}

//! `--gpu-bind` (and the per-task binding `--gpus-per-task` implies): which of its step's GPUs on a node each task
//! sees, through `CUDA_VISIBLE_DEVICES`, `GPU_DEVICE_ORDINAL` and `ROCR_VISIBLE_DEVICES`.
//!
//! As Slurm 22.05 does (checked with fake GPUs, no device confinement): `map_gpu:L` gives task `LOCALID` the GPU at
//! `L[LOCALID mod len]` and `mask_gpu:M` the GPUs in `M[LOCALID mod len]`, both by the node's GPU index, and only
//! if the step holds them (else the task sees all of the step's); `single:N` gives `N` tasks each GPU in turn;
//! `per_task:N` (also what `--gpus-per-task=N` implies) gives each task `N` GPUs of its own; `none` leaves the
//! variables unset; `closest` and the default leave every task the step's GPUs.

/// The variables a task's GPU binding rewrites.
pub const GPU_VARS: [&str; 3] = [
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
    "ROCR_VISIBLE_DEVICES",
];

/// The GPUs (node indices) task `localid` sees out of `step_gpus`: `None` leaves it the step's.
pub fn task_gpus(policy: &str, step_gpus: &[u32], localid: u32) -> Option<Vec<u32>> {
    let lower = crate::grammar::cpu_bind::bind_type(policy).to_ascii_lowercase();
    let nth = |list: &str| -> Option<String> {
        let items: Vec<&str> = list.split(',').collect();
        items
            .get(localid as usize % items.len().max(1))
            .map(|s| s.to_string())
    };
    if lower == "none" {
        return Some(Vec::new());
    }
    if let Some(list) = lower.strip_prefix("map_gpu:") {
        let gpu: u32 = nth(list)?.trim().parse().ok()?;
        return step_gpus.contains(&gpu).then(|| vec![gpu]);
    }
    if let Some(list) = lower.strip_prefix("mask_gpu:") {
        let text = nth(list)?;
        let mask = u64::from_str_radix(text.trim().trim_start_matches("0x"), 16).ok()?;
        let chosen: Vec<u32> = step_gpus
            .iter()
            .copied()
            .filter(|g| *g < 64 && mask & (1 << g) != 0)
            .collect();
        return (!chosen.is_empty()).then_some(chosen);
    }
    if let Some(n) = lower.strip_prefix("single:") {
        let per_gpu: u32 = n.trim().parse().ok().filter(|n| *n > 0)?;
        return step_gpus
            .get((localid / per_gpu) as usize)
            .map(|g| vec![*g]);
    }
    if let Some(n) = lower.strip_prefix("per_task:") {
        let count: usize = n.trim().parse().ok().filter(|n| *n > 0)?;
        let start = localid as usize * count;
        return step_gpus.get(start..start + count).map(<[u32]>::to_vec);
    }
    None
}

/// Rewrites a task's environment for its binding: the step's GPUs are read from the variables it already has.
pub fn apply_to_env(policy: &str, env: &mut Vec<(String, String)>, localid: u32) {
    let step_gpus: Vec<u32> = env
        .iter()
        .find(|(k, _)| GPU_VARS.contains(&k.as_str()))
        .map(|(_, v)| v.split(',').filter_map(|g| g.trim().parse().ok()).collect())
        .unwrap_or_default();
    if step_gpus.is_empty() {
        return;
    }
    let Some(gpus) = task_gpus(policy, &step_gpus, localid) else {
        return;
    };
    let present: Vec<&str> = GPU_VARS
        .iter()
        .copied()
        .filter(|var| env.iter().any(|(k, _)| k == var))
        .collect();
    env.retain(|(k, _)| !GPU_VARS.contains(&k.as_str()));
    if gpus.is_empty() {
        return;
    }
    let text = gpus
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    for var in present {
        env.push((var.to_string(), text.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Slurm 22.05 gave two tasks on a node's GPUs 0 and 1 (four for mask_gpu).
    #[test]
    fn bindings_match_slurm() {
        let two = [0, 1];
        assert_eq!(task_gpus("map_gpu:1,0", &two, 0), Some(vec![1]));
        assert_eq!(task_gpus("map_gpu:1,0", &two, 1), Some(vec![0]));
        assert_eq!(task_gpus("single:1", &two, 1), Some(vec![1]));
        assert_eq!(
            task_gpus("mask_gpu:0x3,0xc", &[0, 1, 2, 3], 1),
            Some(vec![2, 3])
        );
        assert_eq!(task_gpus("closest", &two, 1), None);
        assert_eq!(task_gpus("none", &two, 1), Some(vec![]));
        assert_eq!(task_gpus("per_task:1", &two, 1), Some(vec![1]));
        assert_eq!(task_gpus("verbose,per_task:1", &two, 0), Some(vec![0]));
        // A GPU the step does not hold leaves the task every GPU of the step.
        assert_eq!(task_gpus("map_gpu:3", &two, 0), None);
    }

    #[test]
    fn the_environment_keeps_its_variables_with_the_tasks_gpus() {
        let mut env = vec![
            ("PATH".to_string(), "/bin".to_string()),
            ("CUDA_VISIBLE_DEVICES".to_string(), "0,1".to_string()),
            ("GPU_DEVICE_ORDINAL".to_string(), "0,1".to_string()),
        ];
        apply_to_env("per_task:1", &mut env, 1);
        assert!(env.contains(&("CUDA_VISIBLE_DEVICES".to_string(), "1".to_string())));
        assert!(env.contains(&("GPU_DEVICE_ORDINAL".to_string(), "1".to_string())));
        assert!(!env.iter().any(|(k, _)| k == "ROCR_VISIBLE_DEVICES"));
        apply_to_env("none", &mut env, 0);
        assert!(!env.iter().any(|(k, _)| GPU_VARS.contains(&k.as_str())));
    }
}

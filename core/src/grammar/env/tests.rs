//! The environments built here against Slurm 22.05's: which variables each context sets
//! (`core/tests/vectors/env_vars.tsv`) and, for the captured jobs, every value (`core/tests/golden/`).

use std::collections::BTreeMap;

use super::*;
use crate::model::job::{Allocation, JobSpec};
use crate::model::states::JobBaseState;

const VARS: &str = include_str!("../../../tests/vectors/env_vars.tsv");
const SRUN_N1: &str = include_str!("../../../tests/golden/slurm-22.05/32-srun-env-sorted.txt");
const SALLOC_N1: &str = include_str!("../../../tests/golden/slurm-22.05/33-salloc-env-sorted.txt");
const SALLOC_SRUN: &str =
    include_str!("../../../tests/golden/slurm-22.05/34-salloc-srun-env-sorted.txt");
const SRUN_N2: &str = include_str!("../../../tests/golden/slurm-22.05/23-srun-n2-env-SLURM.txt");
const BATCH_N1: &str = include_str!("../../../tests/golden/slurm-22.05/31-batch-env-sorted.txt");

/// The clean environment the captures were submitted from (`env -i ...`).
fn clean_env() -> Vec<(String, String)> {
    [
        ("HOME", "/root"),
        (
            "PATH",
            "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        ),
        ("USER", "root"),
        ("LOGNAME", "root"),
        ("SHELL", "/bin/bash"),
        ("TERM", "dumb"),
        ("LANG", "C.UTF-8"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// A running job on node `vm` of the reference cluster.
fn job(job_id: u32, name: &str, ntasks: Option<u32>, cpus: u32) -> JobRecord {
    let spec = JobSpec {
        name: name.to_string(),
        user_name: "root".to_string(),
        nodes_min: 1,
        ntasks,
        cpus_per_task: 1,
        work_dir: "$SUBMIT_DIR".to_string(),
        submit_host: "vm".to_string(),
        environment: clean_env(),
        ..JobSpec::default()
    };
    let mut record = JobRecord::pending(job_id, spec, "debug".to_string(), 0, 0);
    record.state = JobBaseState::Running;
    record.alloc = Some(Allocation {
        node_names: vec!["vm".to_string()],
        cpus,
        mem_mb: 1024 * u64::from(cpus),
        ..Allocation::default()
    });
    record
}

fn step_ctx(step_id: u32, ntasks: u32) -> StepEnvContext<'static> {
    StepEnvContext {
        node_name: "vm",
        cluster_name: "refcluster",
        slurm_conf: "/etc/slurm/slurm.conf",
        controller_addr: "127.0.0.1:6817",
        step_id,
        ntasks,
        launch_addr: "127.0.0.1",
        launcher_port: 41713,
        umask: 0o022,
        debug_level: 3,
        ..StepEnvContext::default()
    }
}

fn alloc_ctx() -> AllocEnvContext<'static> {
    AllocEnvContext {
        cluster_name: "refcluster",
        slurm_conf: "/etc/slurm/slurm.conf",
    }
}

fn batch_ctx() -> BatchEnvContext<'static> {
    BatchEnvContext {
        node_name: "vm",
        cluster_name: "refcluster",
        slurm_conf: "/etc/slurm/slurm.conf",
        controller_addr: "127.0.0.1:6817",
        mem_per_cpu_mb: Some(1024),
        ..BatchEnvContext::default()
    }
}

/// The stdout lines of a capture.
fn stdout_lines(capture: &str) -> Vec<&str> {
    capture
        .lines()
        .skip_while(|l| *l != "--- stdout ---")
        .skip(1)
        .take_while(|l| *l != "--- stderr ---")
        .collect()
}

/// Values that differ on every run (PIDs, ports) become `*`; variables a shell or `env` adds are dropped, and so
/// is `SLURM_TASK_PID`, which only the launcher can set.
fn normalise<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    const VOLATILE: &[&str] = &[
        "SLURM_SRUN_COMM_PORT",
        "SLURM_STEP_LAUNCHER_PORT",
        "SLURM_WORKING_CLUSTER",
    ];
    const DROPPED: &[&str] = &["SLURM_TASK_PID", "PWD", "SHLVL", "_"];
    let mut out: Vec<String> = lines
        .into_iter()
        .filter_map(|line| {
            let line = line.split_once(": ").map_or(line, |(_, rest)| rest);
            let (key, value) = line.split_once('=')?;
            if DROPPED.contains(&key) || key.starts_with("SPUR_") {
                return None;
            }
            Some(if VOLATILE.contains(&key) {
                format!("{key}=*")
            } else {
                format!("{key}={value}")
            })
        })
        .collect();
    out.sort();
    out
}

fn rendered(env: &[(String, String)]) -> Vec<String> {
    normalise(
        env.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .iter()
            .map(String::as_str),
    )
}

fn srun_task_env(job: &JobRecord, ctx: &StepEnvContext<'_>, procid: u32) -> Vec<(String, String)> {
    let step = step_environment(&job.spec.environment, job, ctx);
    task_environment(
        &step,
        TaskPlacement {
            procid,
            localid: procid,
        },
    )
}

#[test]
fn srun_n1_matches_slurm() {
    let job = job(15, "env", Some(1), 1);
    let env = srun_task_env(&job, &step_ctx(0, 1), 0);
    assert_eq!(rendered(&env), normalise(stdout_lines(SRUN_N1)));
}

#[test]
fn srun_n2_tasks_match_slurm() {
    let job = job(7, "env", Some(2), 2);
    let ctx = step_ctx(0, 2);
    let mut lines: Vec<String> = (0..2)
        .flat_map(|rank| rendered(&srun_task_env(&job, &ctx, rank)))
        .filter(|l| l.starts_with("SLURM_") && !l.starts_with("SLURM_CONF="))
        .collect();
    lines.sort();
    let expected: Vec<String> = normalise(stdout_lines(SRUN_N2))
        .into_iter()
        .filter(|l| !l.starts_with("SLURM_CONF=") && !l.starts_with("SLURM_SUBMIT_DIR="))
        .collect();
    lines.retain(|l| !l.starts_with("SLURM_SUBMIT_DIR="));
    assert_eq!(lines, expected);
}

#[test]
fn salloc_matches_slurm() {
    let job = job(16, "interactive", Some(1), 1);
    let env = salloc_environment(&job, &alloc_ctx());
    assert_eq!(rendered(&env), normalise(stdout_lines(SALLOC_N1)));
}

#[test]
fn srun_inside_salloc_matches_slurm() {
    let job = job(17, "interactive", Some(2), 2);
    let salloc = salloc_environment(&job, &alloc_ctx());
    let ctx = StepEnvContext {
        within_allocation: true,
        distribution: Some(default_distribution(1, 1)),
        launcher_port: 36605,
        ..step_ctx(0, 1)
    };
    let step = step_environment(&salloc, &job, &ctx);
    let env = task_environment(
        &step,
        TaskPlacement {
            procid: 0,
            localid: 0,
        },
    );
    assert_eq!(rendered(&env), normalise(stdout_lines(SALLOC_SRUN)));
}

#[test]
fn batch_matches_slurm() {
    let job = job(14, "envjob", Some(1), 1);
    let env = batch_environment(&job, &batch_ctx());
    assert_eq!(rendered(&env), normalise(stdout_lines(BATCH_N1)));
}

/// The vector's columns: variable name to whether each context sets it.
fn vector() -> BTreeMap<String, BTreeMap<String, bool>> {
    let mut lines = VARS.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    lines
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            let contexts = header[1..]
                .iter()
                .zip(&cells[1..])
                .map(|(context, cell)| (context.to_string(), *cell == "x"))
                .collect();
            (cells[0].to_string(), contexts)
        })
        .collect()
}

/// Every variable the vector lists is set exactly in the contexts it says; nothing unlisted is set.
fn check_context(context: &str, env: &[(String, String)], only: impl Fn(&str) -> bool) {
    let vector = vector();
    assert!(!vector.is_empty());
    for (var, contexts) in &vector {
        if !only(var) {
            continue;
        }
        let set = env.iter().any(|(k, _)| k == var);
        let expected = contexts[context];
        // The process that starts the program (srun, the batch supervisor) sets SLURM_TASK_PID, not the builder.
        if var == "SLURM_TASK_PID" {
            continue;
        }
        assert_eq!(set, expected, "{var} in {context}");
    }
    for (k, _) in env
        .iter()
        .filter(|(k, _)| k.starts_with("SLURM") && only(k))
    {
        assert!(
            vector.contains_key(k),
            "{k} is set in {context} but unknown"
        );
    }
}

#[test]
fn contexts_set_the_variables_slurm_sets() {
    let all = |_: &str| true;
    check_context(
        "batch",
        &batch_environment(&job(1, "b", Some(1), 1), &batch_ctx()),
        all,
    );
    let j = job(2, "env", Some(1), 1);
    check_context("srun", &srun_task_env(&j, &step_ctx(0, 1), 0), all);
    let alloc = job(3, "interactive", Some(1), 1);
    let salloc = salloc_environment(&alloc, &alloc_ctx());
    check_context("salloc", &salloc, all);
    let ctx = StepEnvContext {
        within_allocation: true,
        distribution: Some("cyclic"),
        ..step_ctx(0, 1)
    };
    let step = step_environment(&salloc, &alloc, &ctx);
    let task = task_environment(
        &step,
        TaskPlacement {
            procid: 0,
            localid: 0,
        },
    );
    check_context("salloc_srun", &task, all);
    let mut array = job(4, "arr", None, 1);
    array.array_job_id = Some(4);
    array.array_task_id = Some(1);
    // The array capture kept only `^SLURM` lines.
    let slurm_only = |v: &str| v.starts_with("SLURM");
    check_context(
        "array",
        &batch_environment(
            &array,
            &BatchEnvContext {
                array: crate::wire::agent_proto::ArraySummary::of(&[1, 2, 3]),
                ..batch_ctx()
            },
        ),
        slurm_only,
    );
    let gpus = [0, 1];
    let ctx = StepEnvContext {
        gpus: Some(&gpus),
        ..step_ctx(0, 1)
    };
    let gpu_vars = |v: &str| v.contains("GPU") || v.contains("CUDA") || v.contains("GRES");
    check_context("gres", &srun_task_env(&j, &ctx, 0), gpu_vars);
}

#[test]
fn gpu_values_follow_the_step() {
    let j = job(5, "env", Some(1), 1);
    let gpus = [2, 3];
    let ctx = StepEnvContext {
        gpus: Some(&gpus),
        ..step_ctx(0, 1)
    };
    let env = srun_task_env(&j, &ctx, 0);
    let get = |k: &str| {
        env.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("CUDA_VISIBLE_DEVICES"), Some("2,3"));
    assert_eq!(get("ROCR_VISIBLE_DEVICES"), Some("2,3"));
    assert_eq!(get("SLURM_STEP_GPUS"), Some("2,3"));
    assert_eq!(get("SLURM_GPUS_ON_NODE"), Some("2"));
    assert_eq!(get("SLURM_JOB_GPUS"), None);
}

#[test]
fn explicit_options_show_up() {
    let mut j = job(6, "interactive", Some(2), 2);
    j.spec.cpus_per_task = 1;
    j.spec
        .options
        .insert("cpus-per-task".to_string(), "1".to_string());
    j.spec.mem_per_cpu_mb = Some(100);
    j.spec
        .options
        .insert("mem-per-cpu".to_string(), "100".to_string());
    let env = salloc_environment(&j, &alloc_ctx());
    let get = |k: &str| {
        env.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("SLURM_CPUS_PER_TASK"), Some("1"));
    assert_eq!(get("SLURM_MEM_PER_CPU"), Some("100"));
    assert_eq!(get("SLURM_TASKS_PER_NODE"), Some("2"));
    assert_eq!(get("SPUR_JOB_ID"), Some("6"));
    // A memory default the controller applied is not the user's request: salloc does not export it.
    j.spec.options.remove("mem-per-cpu");
    let env = salloc_environment(&j, &alloc_ctx());
    assert!(!env.iter().any(|(k, _)| k == "SLURM_MEM_PER_CPU"));
}

#[test]
fn distribution_defaults() {
    assert_eq!(default_distribution(1, 1), "cyclic");
    assert_eq!(default_distribution(2, 1), "block");
}

#[test]
fn task_ranks_and_user_values() {
    let j = job(8, "env", Some(4), 2);
    let step = step_environment(&j.spec.environment, &j, &step_ctx(3, 4));
    let env = task_environment(
        &step,
        TaskPlacement {
            procid: 2,
            localid: 2,
        },
    );
    let get = |k: &str| {
        env.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("SLURM_PROCID"), Some("2"));
    assert_eq!(get("SLURM_GTIDS"), Some("0,1,2,3"));
    assert_eq!(get("SLURM_STEP_ID"), Some("3"));
    assert_eq!(get("SLURM_STEP_TASKS_PER_NODE"), Some("4"));
    assert_eq!(get("HOME"), Some("/root"));
    // A variable exported by the user keeps its value unless Slurm owns it.
    let mut base = clean_env();
    base.push(("TMPDIR".to_string(), "/scratch".to_string()));
    let env = step_environment(&base, &j, &step_ctx(0, 1));
    assert!(env.contains(&("TMPDIR".to_string(), "/scratch".to_string())));
}

#[test]
fn a_step_across_nodes_shows_each_node_its_share() {
    // Observed on Slurm 22.05: `srun -N3 -n5` in a 3-node batch job, the environment of task 2 on n2.
    let mut j = job(1, "s.sh", Some(6), 2);
    if let Some(alloc) = j.alloc.as_mut() {
        alloc.node_names = vec!["n1".into(), "n2".into(), "n3".into()];
    }
    let layout = crate::model::step_layout::StepLayout::new(
        5,
        3,
        None,
        crate::model::step_layout::Distribution::Block,
    );
    let nodes: Vec<String> = vec!["n1".into(), "n2".into(), "n3".into()];
    let ctx = StepEnvContext {
        node_name: "n2",
        spread: Some(StepSpread {
            layout: &layout,
            nodes: &nodes,
            node_id: 1,
        }),
        ..step_ctx(0, 5)
    };
    let env = srun_task_env(&j, &ctx, 2);
    let get = |k: &str| {
        env.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("SLURMD_NODENAME"), Some("n2"));
    assert_eq!(get("SLURM_NODEID"), Some("1"));
    assert_eq!(get("SLURM_GTIDS"), Some("2,3"));
    assert_eq!(get("SLURM_STEP_NODELIST"), Some("n[1-3]"));
    assert_eq!(get("SLURM_STEP_NUM_NODES"), Some("3"));
    assert_eq!(get("SLURM_STEP_NUM_TASKS"), Some("5"));
    assert_eq!(get("SLURM_STEP_TASKS_PER_NODE"), Some("2(x2),1"));
    assert_eq!(get("SLURM_TASKS_PER_NODE"), Some("2(x2),1"));
    assert_eq!(get("SLURM_TOPOLOGY_ADDR"), Some("n2"));
    assert_eq!(get("SLURM_JOB_NODELIST"), Some("n[1-3]"));
    assert_eq!(get("SLURM_PROCID"), Some("2"));
}

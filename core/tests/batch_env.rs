//! The batch environment built from real sbatch command lines (parsed, resolved, then `batch_environment`), against
//! what Slurm 22.05 showed jobs submitted with the same options (vectors/slurm-22.05-generated/batch-env-options.tsv).

use spur_core::grammar::env::{batch_environment, BatchEnvContext};
use spur_core::grammar::options::{parse_sbatch, Command, Outcome};
use spur_core::grammar::values::begin::LocalNow;
use spur_core::model::job::{Allocation, JobRecord};
use spur_core::model::submit::{resolve, ScriptInput, SubmitContext};

fn environment_for(options: &str) -> Vec<(String, String)> {
    let mut args: Vec<String> = options.split(' ').map(str::to_string).collect();
    args.push("--wrap=env".to_string());
    let env: Vec<(String, String)> = vec![("PATH".into(), "/usr/bin:/bin".into())];
    let parsed = match parse_sbatch(&args, &env, |_| None) {
        Ok(Outcome::Run(parsed)) => parsed,
        other => panic!("{options}: {other:?}"),
    };
    let set = &parsed.components[0].options;
    let context = SubmitContext {
        cmd: Command::Sbatch,
        uid: 0,
        gid: 0,
        user_name: "root",
        cwd: "/tmp/work",
        submit_host: "vm",
        env: &env,
        now: LocalNow {
            epoch_secs: 1_796_050_000,
            utc_offset_secs: 0,
        },
        gres_types: &["gpu"],
        max_array_size: 10_001,
        submit_sid: 1,
    };
    let script = ScriptInput {
        body: Some("#!/bin/sh\nenv\n".into()),
        path: None,
        name: "wrap".into(),
        argv: Vec::new(),
    };
    let spec = resolve(&context, set, &script).unwrap_or_else(|e| panic!("{options}: {e:?}"));
    let mut job = JobRecord::pending(5001, spec, "debug".into(), 1_796_050_000, 1);
    job.alloc = Some(Allocation {
        node_names: vec!["vm".into()],
        cpus: 1,
        mem_mb: 1024,
        ..Allocation::default()
    });
    let ctx = BatchEnvContext {
        node_name: "vm",
        cluster_name: "refcluster",
        slurm_conf: "/etc/slurm/slurm.conf",
        controller_addr: "127.0.0.1:6817",
        ..BatchEnvContext::default()
    };
    batch_environment(&job, &ctx)
}

#[test]
fn option_driven_variables_match_slurm() {
    let table = include_str!("vectors/slurm-22.05-generated/batch-env-options.tsv");
    let mut rows = table.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(rows.next(), Some("options\tvariable\tvalue"));
    let mut checked = 0;
    for row in rows {
        let cells: Vec<&str> = row.split('\t').collect();
        let (options, variable, expected) = (cells[0], cells[1], cells[2]);
        let env = environment_for(options);
        let found = env
            .iter()
            .rev()
            .find(|(k, _)| k == variable)
            .map(|(_, v)| v.as_str());
        let expected = (expected != "(unset)").then_some(expected);
        assert_eq!(found, expected, "{options}: {variable}");
        checked += 1;
    }
    assert!(checked > 20);
}

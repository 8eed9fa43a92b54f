//! `--nodelist` and the node count: every listed node is allocated, so the list raises the minimum node count, and
//! a maximum below the list is the client's error. The rows are what sbatch 22.05 did on a three-node cluster
//! (n1..n3, `conformance/targets/*/up.sh --nodes 3`) with `sbatch --hold --parsable OPTIONS --wrap true`.

use spur_core::grammar::options::{parse_sbatch, Command, Outcome};
use spur_core::grammar::values::begin::LocalNow;
use spur_core::model::submit::{resolve, ScriptInput, SubmitContext};

type Resolved = Result<(u32, Option<u32>, Option<String>), (Vec<String>, i32)>;

/// `Ok((nodes_min, nodes_max, required_nodes))` of the resolved job, or the error lines and exit status.
fn resolved(options: &str) -> Resolved {
    let mut args: Vec<String> = options.split(' ').map(str::to_string).collect();
    args.push("--wrap=true".to_string());
    let env: Vec<(String, String)> = vec![("PATH".into(), "/usr/bin:/bin".into())];
    let parsed = match parse_sbatch(&args, &env, |_| None) {
        Ok(Outcome::Run(parsed)) => parsed,
        other => panic!("{options}: {other:?}"),
    };
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
        body: Some("#!/bin/sh\ntrue\n".into()),
        path: None,
        name: "wrap".into(),
        argv: Vec::new(),
    };
    resolve(&context, &parsed.components[0].options, &script)
        .map(|spec| (spec.nodes_min, spec.nodes_max, spec.required_nodes))
        .map_err(|e| (e.lines, e.exit_code))
}

fn node_count(options: &str) -> Result<(u32, Option<u32>), (Vec<String>, i32)> {
    resolved(options).map(|(min, max, _)| (min, max))
}

#[test]
fn the_list_raises_the_minimum() {
    // NumNodes=2, 2-3, 3-3, 1, 2-2 in scontrol.
    assert_eq!(node_count("-w n[2-3]"), Ok((2, None)));
    assert_eq!(node_count("-N1-3 -w n[1-2]"), Ok((2, Some(3))));
    assert_eq!(node_count("-N3 -w n1"), Ok((3, Some(3))));
    assert_eq!(node_count("-w n1,n1"), Ok((1, None)));
    assert_eq!(node_count("-N2 -w n2"), Ok((2, Some(2))));
}

#[test]
fn a_maximum_below_the_list_is_refused() {
    for (options, text) in [
        ("-N1 -w n[1-2]", "invalid number of nodes (-N 2-1)"),
        ("-N2-2 -w n[1-3]", "invalid number of nodes (-N 3-2)"),
        ("-N-2 -w n[1-3]", "invalid number of nodes (-N 3-2)"),
    ] {
        let (lines, status) = node_count(options).expect_err(options);
        assert_eq!(status, 1, "{options}");
        assert!(
            lines.iter().any(|l| l.contains(text)),
            "{options}: {lines:?}"
        );
    }
}

#[test]
fn the_list_is_kept_sorted_without_repeats() {
    let req = |options: &str| resolved(options).map(|(_, _, req)| req).expect(options);
    assert_eq!(req("-w n3,n1").as_deref(), Some("n[1,3]"));
    assert_eq!(req("-w n1,n1").as_deref(), Some("n1"));
    assert_eq!(req("-w n[3,1]").as_deref(), Some("n[1,3]"));
    assert_eq!(req("-w n2,n1,n3").as_deref(), Some("n[1-3]"));
}

#[test]
fn a_list_from_a_file_is_left_to_the_controller() {
    assert_eq!(
        resolved("-w /tmp/nodes"),
        Ok((1, None, Some("/tmp/nodes".into())))
    );
}

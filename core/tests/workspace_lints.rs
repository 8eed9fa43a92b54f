//! The lints that state the house's habits must stay switched on: unwrap/expect denied outside tests for every
//! crate (root Cargo.toml, tests excepted by clippy.toml), `unsafe` only with a SAFETY comment, every member crate
//! taking the workspace's lints, and the three daemons (spurctld, spurd, spurstepd), which read what other
//! processes send, also denying indexing in every crate root (issue 29: foreign data must not panic a daemon).

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};

const INDEXING_LINT: &str = "#![cfg_attr(not(test), deny(clippy::indexing_slicing))]";

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn read(relative: &str) -> String {
    fs::read_to_string(repository_root().join(relative))
        .unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The workspace's member crates, read from the root manifest's `members = [...]` list.
fn members(workspace: &str) -> Vec<String> {
    let start = workspace.find("members = [").expect("a members list");
    let list = &workspace[start..];
    let end = list.find(']').expect("the members list ends");
    list[..end]
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn the_workspace_denies_unwrap_expect_and_undocumented_unsafe() {
    let workspace = read("Cargo.toml");
    for lint in [
        "unwrap_used = \"deny\"",
        "expect_used = \"deny\"",
        "undocumented_unsafe_blocks = \"deny\"",
        "unsafe_op_in_unsafe_fn = \"deny\"",
    ] {
        assert!(
            workspace.lines().any(|l| l.trim() == lint),
            "the workspace lost `{lint}`"
        );
    }
    let clippy_toml = read("clippy.toml");
    for setting in [
        "allow-unwrap-in-tests = true",
        "allow-expect-in-tests = true",
    ] {
        assert!(
            clippy_toml.contains(setting),
            "clippy.toml lost `{setting}`"
        );
    }
}

#[test]
fn every_member_crate_takes_the_workspace_lints() {
    let members = members(&read("Cargo.toml"));
    assert!(members.len() >= 10, "members not read: {members:?}");
    for member in members {
        let manifest = read(&format!("{member}/Cargo.toml"));
        assert!(
            manifest.contains("[lints]\nworkspace = true"),
            "{member} no longer takes the workspace's lints"
        );
    }
}

#[test]
fn the_daemons_deny_indexing_in_every_crate_root() {
    let roots = [
        "controller/src/lib.rs",
        "controller/src/main.rs",
        "controller/src/bin/spur-ha-bench.rs",
        "agent/src/lib.rs",
        "agent/src/main.rs",
        "stepd/src/lib.rs",
        "stepd/src/main.rs",
    ];
    for root in roots {
        assert!(
            read(root).lines().any(|l| l.trim() == INDEXING_LINT),
            "{root} lost its indexing lint"
        );
    }
    // A new binary of a daemon crate is a new crate root: it must be listed above.
    for dir in ["controller/src/bin", "agent/src/bin", "stepd/src/bin"] {
        let Ok(entries) = fs::read_dir(repository_root().join(dir)) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = format!("{dir}/{}", entry.file_name().to_string_lossy());
            assert!(
                roots.contains(&path.as_str()),
                "{path} is a crate root this test does not check"
            );
        }
    }
}

#[test]
fn members_are_read_from_the_manifest_list() {
    let manifest = "[workspace]\nmembers = [\n    \"core\",\n    \"agent\",\n]\n[x]\ny = [\"z\"]\n";
    assert_eq!(members(manifest), ["core", "agent"]);
}

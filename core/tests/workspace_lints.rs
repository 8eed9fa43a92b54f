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

fn manifest(relative: &str) -> toml::Table {
    read(relative)
        .parse()
        .unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// `table.a.b.c` as a string, if it is one.
fn string_at<'a>(table: &'a toml::Table, path: &[&str]) -> Option<&'a str> {
    let (last, parents) = path.split_last()?;
    let mut at = table;
    for key in parents {
        at = at.get(*key)?.as_table()?;
    }
    at.get(*last)?.as_str()
}

#[test]
fn the_workspace_denies_unwrap_expect_and_undocumented_unsafe() {
    let workspace = manifest("Cargo.toml");
    for path in [
        ["workspace", "lints", "clippy", "unwrap_used"],
        ["workspace", "lints", "clippy", "expect_used"],
        ["workspace", "lints", "clippy", "undocumented_unsafe_blocks"],
        ["workspace", "lints", "rust", "unsafe_op_in_unsafe_fn"],
    ] {
        assert_eq!(
            string_at(&workspace, &path),
            Some("deny"),
            "the workspace lost `{}`",
            path.join(".")
        );
    }
    let clippy_toml = manifest("clippy.toml");
    for setting in ["allow-unwrap-in-tests", "allow-expect-in-tests"] {
        assert_eq!(
            clippy_toml.get(setting).and_then(toml::Value::as_bool),
            Some(true),
            "clippy.toml lost `{setting} = true`"
        );
    }
}

#[test]
fn every_member_crate_takes_the_workspace_lints() {
    let workspace = manifest("Cargo.toml");
    let members: Vec<&str> = workspace["workspace"]["members"]
        .as_array()
        .expect("a members list")
        .iter()
        .filter_map(toml::Value::as_str)
        .collect();
    assert!(members.len() >= 10, "members not read: {members:?}");
    for member in members {
        let crate_manifest = manifest(&format!("{member}/Cargo.toml"));
        let takes_workspace = crate_manifest
            .get("lints")
            .and_then(|l| l.get("workspace"))
            .and_then(toml::Value::as_bool);
        assert_eq!(
            takes_workspace,
            Some(true),
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
        "controller/src/bin/spur-history-bench.rs",
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

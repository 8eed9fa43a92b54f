//! docs/architecture.md is the map of the house: every folder under a crate's `src/` must be named there, so a
//! new room cannot appear without a line saying what it is for. Folders are named either by their full path
//! (`agent/src/sim/`) or, for core's and the controller's rooms that the page lists under their crate, by their
//! name alone (`grammar/`, `rules/`).

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};

/// The crates whose rooms the map covers, and whether the page lists them by bare folder name.
const CRATES: &[(&str, bool)] = &[
    ("core", true),
    ("controller", true),
    ("agent", false),
    ("stepd", false),
    ("compat-cli", false),
    ("libspur_compat", false),
    ("auth", false),
    ("conformance", false),
];

fn repository_root() -> PathBuf {
    let core = Path::new(env!("CARGO_MANIFEST_DIR"));
    core.parent().unwrap().to_path_buf()
}

fn folders_under(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The folders under the crates' `src/` that `map` does not name.
fn rooms_missing_from(map: &str) -> Vec<String> {
    let root = repository_root();
    let mut missing = Vec::new();
    for (krate, bare_names) in CRATES {
        for folder in folders_under(&root.join(krate).join("src")) {
            let full = format!("{krate}/src/{folder}/");
            let bare = format!("`{folder}/`");
            if !(map.contains(&full) || (*bare_names && map.contains(&bare))) {
                missing.push(full);
            }
        }
    }
    missing
}

#[test]
fn every_folder_of_a_crate_is_named_in_the_architecture_map() {
    let map = fs::read_to_string(repository_root().join("docs/architecture.md")).unwrap();
    let missing = rooms_missing_from(&map);
    assert!(
        missing.is_empty(),
        "folders missing from docs/architecture.md (add a line saying what each is for): {missing:?}"
    );
}

#[test]
fn a_map_that_names_no_room_misses_every_folder() {
    // The check must be able to fail: against an empty page it reports core's rooms and the others by full path.
    let missing = rooms_missing_from("");
    for room in [
        "core/src/grammar/",
        "controller/src/rules/",
        "agent/src/sim/",
        "stepd/src/cgroup/",
    ] {
        assert!(
            missing.iter().any(|m| m == room),
            "{room} not reported: {missing:?}"
        );
    }
    // A bare name counts only for the crates the page lists that way.
    let missing = rooms_missing_from("`sim/` `grammar/`");
    assert!(missing.iter().any(|m| m == "agent/src/sim/"));
    assert!(!missing.iter().any(|m| m == "core/src/grammar/"));
}

//! Checks on the shipped cases themselves: every case loads, there are enough of them, the CI subset exists, and
//! every declared known difference is listed in docs/compatibility.md (and nothing else is listed there).

use std::collections::BTreeSet;
use std::path::Path;

use spur_conformance::case::load_cases;

fn cases_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/cases"))
}

#[test]
fn all_cases_load_and_cover_the_suite() {
    let cases = load_cases(cases_dir()).unwrap();
    assert!(cases.len() >= 100, "only {} cases", cases.len());
    let ci = cases.iter().filter(|c| c.spec.ci).count();
    assert!((20..=60).contains(&ci), "{ci} ci cases");
    // Time limits are whole minutes in Slurm, so a case that watches one expire (a job's, 280; a step's, 413) needs
    // more than one, as does 322 (group lookups); everything else must stay quick, except the pyslurm cases (491,
    // 492), which run a whole external test suite whose jobs wait for the tests to cancel them, and submitit (514),
    // which installs submitit on its first run and then waits out submitit's own polling interval, and the
    // strigger case that watches triggers fire (631), since slurmctld checks its triggers only every 15 s.
    let slow = cases
        .iter()
        .filter(|c| {
            c.spec.timeout_s > 60
                && !c.name.contains("-pyslurm-")
                && !c.name.contains("-submitit")
                && !c.name.contains("-strigger-fire")
        })
        .count();
    assert!(slow <= 3, "{slow} cases need more than a minute");
    for c in &cases {
        assert!(
            c.spec.description.is_some(),
            "{} has no description",
            c.name
        );
        assert!(
            !(c.spec.ci && c.spec.timeout_s > 60),
            "{} is slow but in the CI subset",
            c.name
        );
    }
}

#[test]
fn every_run_script_sources_the_helpers() {
    for c in load_cases(cases_dir()).unwrap() {
        let text = std::fs::read_to_string(c.dir.join("run.sh")).unwrap();
        assert!(
            text.contains(". \"$CASE_LIB\""),
            "{} does not source $CASE_LIB",
            c.name
        );
    }
}

#[test]
fn known_differences_are_documented() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/compatibility.md"
    ))
    .unwrap();
    let section = doc
        .split("## Conformance cases with a known difference")
        .nth(1)
        .expect("docs/compatibility.md lacks the known-difference section");
    let listed: BTreeSet<String> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    let declared: BTreeSet<String> = load_cases(cases_dir())
        .unwrap()
        .into_iter()
        .filter(|c| c.spec.known_difference.is_some())
        .map(|c| c.name)
        .collect();
    assert_eq!(
        declared, listed,
        "cases declaring known_difference vs docs/compatibility.md"
    );
}

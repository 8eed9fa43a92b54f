use spur_core::grammar::values::dependency::*;

use super::tsv::load;

/// Ids substituted for the vector's `{A}`, `{B}` (plain jobs) and `{R}` (an array job).
const A: u32 = 180;
const B: u32 = 181;
const R: u32 = 182;

fn substitute(text: &str) -> String {
    text.replace("{A}", &A.to_string())
        .replace("{B}", &B.to_string())
        .replace("{R}", &R.to_string())
}

/// What slurmctld shows right after submission: every entry unfulfilled, and a plain id of an array job as `_*`.
fn as_controller_shows(spec: &DependencySpec) -> String {
    let entries: Vec<(Dependency, DepState)> = spec
        .deps
        .iter()
        .map(|d| {
            let mut d = *d;
            if let Some(job) = d
                .job
                .as_mut()
                .filter(|j| j.job_id == R && j.array.is_none())
            {
                job.array = Some(ArraySel::All);
            }
            (d, DepState::Unfulfilled)
        })
        .collect();
    format_dependency(&entries, spec.any)
}

#[test]
fn controller_dependency_specs() {
    for row in load("dependency_specs.tsv", false) {
        let spec = substitute(row.get(0));
        let ours = parse_dependency(&spec);
        if row.get(1) == "error" {
            let got = ours
                .map(|s| as_controller_shows(&s))
                .map_err(|e| format!("Batch job submission failed: {e}"));
            assert_eq!(
                got,
                Err(row.get(2).to_string()),
                "line {}: {spec:?}",
                row.line
            );
            continue;
        }
        let parsed = ours.unwrap_or_else(|e| panic!("line {}: {spec:?}: {e}", row.line));
        assert_eq!(
            as_controller_shows(&parsed),
            substitute(row.get(2)),
            "line {}: {spec:?}",
            row.line
        );
    }
}

#[test]
fn captured_dependency_lines() {
    // Captures 44/58/73/80/81 of the reference cluster.
    assert_eq!(
        parse_dependency("afterok:21").unwrap().to_string(),
        "afterok:21(unfulfilled)"
    );
    assert_eq!(
        parse_dependency("afternotok:29").unwrap().to_string(),
        "afternotok:29(unfulfilled)"
    );
    assert_eq!(
        parse_dependency("singleton").unwrap().to_string(),
        "singleton(unfulfilled)"
    );
    assert_eq!(
        parse_dependency("afterany:32:33").unwrap().to_string(),
        "afterany:32(unfulfilled),afterany:33(unfulfilled)"
    );
    let failed = parse_dependency("afterok:21").unwrap().deps[0];
    assert_eq!(
        format_dependency(&[(failed, DepState::Failed)], false),
        "afterok:21(failed)"
    );
}

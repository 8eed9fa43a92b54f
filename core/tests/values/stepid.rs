use spur_core::grammar::values::stepid::*;

use super::tsv::load;

fn shown(ids: &[StepId]) -> String {
    ids.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("|")
}

#[test]
fn generated_step_lists() {
    for row in load("step_lists.tsv", true) {
        let input = row.get(0);
        let ours = parse_step_list(input);
        if row.get(1) == "fatal" {
            assert_eq!(
                ours.map_err(|e| e.to_string()),
                Err(row.get(3).to_string()),
                "line {}: {input:?}",
                row.line
            );
            continue;
        }
        let ids = ours.unwrap_or_else(|e| panic!("line {}: {input:?}: {e}", row.line));
        assert_eq!(
            ids.len().to_string(),
            row.get(1),
            "line {}: {input:?}",
            row.line
        );
        assert_eq!(shown(&ids), row.get(2), "line {}: {input:?}", row.line);
    }
}

#[test]
fn reference_step_list() {
    for row in load("reference/unit_step_list.tsv", false) {
        let input = if row.get(0) == "(NULL)" {
            ""
        } else {
            row.get(0)
        };
        let ours = parse_step_list(input);
        if input == "123, 123.1, 123.batch" {
            // The transcription says Slurm logs an error and keeps "123"; the installed 22.05.8 library exits with
            // this message instead (see step_lists.tsv), and the library is the oracle.
            assert_eq!(
                ours.unwrap_err().to_string(),
                "Bad job/step specified:  123.1"
            );
            continue;
        }
        let ids = ours.unwrap_or_else(|e| panic!("line {}: {input:?}: {e}", row.line));
        assert_eq!(
            ids.len().to_string(),
            row.get(1),
            "line {}: {input:?}",
            row.line
        );
        // The expected column may carry a note in parentheses after the items.
        let want = row.get(2).split(" (").next().unwrap_or("");
        assert_eq!(shown(&ids), want, "line {}: {input:?}", row.line);
    }
}

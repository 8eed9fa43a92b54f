use spur_core::grammar::values::constraint::*;

use super::tsv::load;

/// The private controller's node features.
fn known(feature: &str) -> bool {
    ["intel", "a100", "ib", "amd", "mi300x"].contains(&feature)
}

#[test]
fn controller_constraint_specs() {
    for row in load("constraint_specs.tsv", false) {
        let input = row.get(0);
        let ours = parse_constraint_known(input, &known);
        if row.get(1) == "error" {
            let want = row
                .get(2)
                .trim_start_matches("Batch job submission failed: ");
            assert_eq!(
                ours.map(|c| c.to_string()).map_err(|e| e.to_string()),
                Err(want.to_string()),
                "line {}",
                row.line
            );
            continue;
        }
        let parsed = ours.unwrap_or_else(|e| panic!("line {}: {input:?}: {e}", row.line));
        assert_eq!(
            parsed.to_string(),
            row.get(2),
            "line {}: {input:?}",
            row.line
        );
        assert_eq!(
            parse_constraint(&parsed.to_string()).as_ref(),
            Ok(&parsed),
            "line {}: round trip",
            row.line
        );
    }
}

use spur_core::grammar::values::nodes::*;

use super::tsv::load;

/// Slurm casts an out-of-range maximum to int and reports the wrapped number; Spur names the side instead.
const OVERFLOWS: &[&str] = &["1-2147483648"];

#[test]
fn generated_verify_node_count() {
    for row in load("node_count.tsv", true) {
        let input = row.get(0);
        let ours = parse_node_count(input);
        match row.get(1) {
            "ok" => {
                let want = NodeCount {
                    min: row.get(2).parse().unwrap(),
                    max: row.get(3).parse().unwrap(),
                };
                assert_eq!(ours, Ok(want), "line {}: {input:?}", row.line);
            }
            _ if OVERFLOWS.contains(&input) => {
                assert!(ours.is_err(), "line {}: {input:?}", row.line)
            }
            _ => assert_eq!(
                ours.map_err(|e| e.to_string()),
                Err(row.get(4).to_string()),
                "line {}: {input:?}",
                row.line
            ),
        }
    }
}

#[test]
fn private_controller_displays() {
    // scontrol NumNodes= seen on a private slurmctld 22.05.8 for -N 2-3.
    assert_eq!(parse_node_count("2-3").unwrap().to_string(), "2-3");
}

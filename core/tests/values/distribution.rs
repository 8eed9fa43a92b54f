use spur_core::grammar::values::distribution::*;

use super::tsv::load;

#[test]
fn reference_task_distribution() {
    for row in load("reference/task_distribution.tsv", false) {
        let input = row.get(0);
        let want = u32::from_str_radix(row.get(1).trim_start_matches("0x"), 16).unwrap();
        match parse_distribution(input) {
            Ok(d) => {
                assert_eq!(d.to_slurm_u32(), want, "line {}: {input:?}", row.line);
                let plane = d
                    .plane_size()
                    .map_or("NO_VAL".to_string(), |p| p.to_string());
                assert_eq!(plane, row.get(2), "line {}", row.line);
                assert_eq!(
                    format_task_dist_states(want),
                    row.get(3),
                    "line {}",
                    row.line
                );
            }
            Err(_) => assert_eq!(want, 0xffff_ffff, "line {}: {input:?} refused", row.line),
        }
    }
}

#[test]
fn generated_distributions() {
    for row in load("distributions.tsv", true) {
        let input = row.get(1);
        if row.get(0) == "format" {
            let value = u32::from_str_radix(input.trim_start_matches("0x"), 16).unwrap();
            assert_eq!(
                format_task_dist_states(value),
                row.get(4),
                "line {}",
                row.line
            );
            continue;
        }
        let ours = parse_distribution(input);
        match row.get(2) {
            "CRASH" => assert_eq!(
                ours,
                Err(DistributionError::InvalidPlaneSize),
                "line {}: {input:?}",
                row.line
            ),
            "0xffffffff" => assert_eq!(
                ours,
                Err(DistributionError::Invalid),
                "line {}: {input:?}",
                row.line
            ),
            // Slurm takes both pack flags at once, then fails to print them; Spur refuses the pair up front.
            "0x00c02000" => assert_eq!(
                ours,
                Err(DistributionError::Invalid),
                "line {}: {input:?}",
                row.line
            ),
            hex => {
                let d = ours.unwrap_or_else(|e| panic!("line {}: {input:?}: {e}", row.line));
                let want = u32::from_str_radix(hex.trim_start_matches("0x"), 16).unwrap();
                assert_eq!(d.to_slurm_u32(), want, "line {}: {input:?}", row.line);
                assert_eq!(
                    format_task_dist_states(want),
                    row.get(4),
                    "line {}",
                    row.line
                );
                // sbatch refuses arbitrary without -w after parsing; the parsed form is still checked above.
                if !row.get(5).starts_with("error: With Arbitrary") {
                    assert_eq!(
                        d.to_string(),
                        row.get(5),
                        "line {}: sbatch -v for {input:?}",
                        row.line
                    );
                }
            }
        }
    }
}

use spur_core::grammar::values::array::*;
use spur_core::grammar::values::bitmap::*;

use super::tsv::load;

#[test]
fn reference_bit_unfmt_fmt() {
    for row in load("reference/bit_unfmt_fmt.tsv", false) {
        let map = bit_unfmt(128, row.get(0)).unwrap_or_else(|e| panic!("line {}: {e}", row.line));
        assert_eq!(
            bit_fmt(&map),
            row.get(2),
            "line {}: {:?}",
            row.line,
            row.get(0)
        );
        assert_eq!(bit_fmt(&map), row.get(3), "line {}: full", row.line);
    }
}

#[test]
fn generated_bit_unfmt() {
    for row in load("bit_unfmt.tsv", true) {
        let ours = bit_unfmt(128, row.get(0));
        match row.get(1) {
            "0" => assert_eq!(
                ours.map(|m| bit_fmt(&m)),
                Ok(row.get(2).to_string()),
                "line {}",
                row.line
            ),
            _ => assert!(
                ours.is_err(),
                "line {}: {:?} should fail",
                row.line,
                row.get(0)
            ),
        }
    }
}

#[test]
fn generated_hexmask() {
    for row in load("hexmask.tsv", true) {
        let size: usize = row.get(0).parse().unwrap();
        let ours = bit_unfmt_hexmask(size, row.get(1));
        if row.get(2) != "0" {
            assert!(
                ours.is_err(),
                "line {}: {:?} should fail",
                row.line,
                row.get(1)
            );
            continue;
        }
        let map = ours.unwrap_or_else(|e| panic!("line {}: {e}", row.line));
        assert_eq!(bit_fmt(&map), row.get(3), "line {}", row.line);
        assert_eq!(bit_fmt_hexmask(&map), row.get(4), "line {}", row.line);
    }
}

/// The reference rows are described in words; each is checked against what it states.
#[test]
fn reference_bitstring() {
    let rows = load("reference/unit_bitstring.tsv", false);
    assert_eq!(rows.len(), 18);
    let words =
        |s: &str| Bitmap::from_bits(1024, s.split(',').map(|b| b.parse().unwrap())).unwrap();
    assert_eq!(bit_fmt(&Bitmap::new(1024)), rows[0].get(2));
    assert_eq!(bit_fmt(&words("42")), rows[1].get(2));
    assert_eq!(bit_fmt(&words("42,102")), rows[2].get(2));
    let ranges = bit_unfmt(1024, "9-14,42,102").unwrap();
    assert_eq!(bit_fmt(&ranges), rows[3].get(2));
    let mut big = Bitmap::new(1024);
    for bit in [1, 3, 30].into_iter().chain(42..=64).chain(97..=1000) {
        big.set(bit);
    }
    assert_eq!(
        bit_unfmt(1024, &bit_fmt(&big)),
        Ok(big),
        "{}",
        rows[4].get(2)
    );
    assert_eq!(
        bit_fmt(&bit_unfmt_hexmask(16, "0xBDFF").unwrap()),
        "0-8,10-13,15",
        "{}",
        rows[5].get(2)
    );
    for row in &rows[6..12] {
        let map = bit_unfmt_hexmask(64, row.get(0)).unwrap();
        assert_eq!(bit_fmt_hexmask(&map), row.get(2), "line {}", row.line);
    }
    let wide = bit_unfmt_hexmask(65, "0x10000000000000002").unwrap();
    assert_eq!(bit_fmt_hexmask(&wide), rows[12].get(2));
    for bad in ["Z", "0xZ", "0xZ0"] {
        assert!(bit_unfmt_hexmask(64, bad).is_err(), "{bad}");
    }
    assert!(bit_unfmt_hexmask(1, "0x2").is_err() && bit_unfmt_hexmask(1, "0x80").is_err());
}

/// `SLURM_BITSTR_LEN` as the vector files write it: empty or `-` for unset.
fn env_len(field: &str) -> Option<usize> {
    bitstr_len_from_env(if field.is_empty() || field == "-" {
        None
    } else {
        Some(field)
    })
}

#[test]
fn reference_xlate_array_task_str() {
    for row in load("reference/unit_xlate_array_task_str.tsv", false) {
        let input = row.get(0);
        let max: u32 = row.get(1).parse().unwrap();
        let want = row.get(3);
        match input {
            "(NULL)" => continue, // a C NULL has no Rust counterpart
            "(empty string)" => assert_eq!(xlate_array_task_str("", max, env_len(row.get(2))), ""),
            _ if !input.starts_with("0x") => {
                let unchanged = want.split(" (").next().unwrap_or(want);
                assert_eq!(
                    xlate_array_task_str(input, max, env_len(row.get(2))),
                    unchanged,
                    "line {}",
                    row.line
                );
            }
            _ => {
                assert_eq!(
                    xlate_array_task_str(input, max, env_len(row.get(2))),
                    want,
                    "line {}",
                    row.line
                );
                if row.get(4) != "(bitmap not requested)" {
                    let map = bit_unfmt_hexmask(input.len() * 4, input).unwrap();
                    assert_eq!(bit_fmt(&map), row.get(4), "line {}: full", row.line);
                }
            }
        }
    }
}

#[test]
fn generated_xlate() {
    for row in load("xlate.tsv", true) {
        let max: u32 = row.get(1).parse().unwrap();
        let ours = xlate_array_task_str(row.get(0), max, env_len(row.get(2)));
        assert_eq!(
            ours,
            row.get(3),
            "line {}: {:?} env {:?}",
            row.line,
            row.get(0),
            row.get(2)
        );
    }
}

#[test]
fn controller_array_specs() {
    for row in load("array_specs.tsv", false) {
        let spec = row.get(0);
        let ours = parse_array_spec(spec, DEFAULT_MAX_ARRAY_SIZE);
        if row.get(1) == "error" {
            let msg = ours
                .map(|s| s.display())
                .map_err(|e| format!("Batch job submission failed: {e}"));
            assert_eq!(
                msg,
                Err(row.get(2).to_string()),
                "line {}: {spec:?}",
                row.line
            );
            continue;
        }
        let parsed = ours.unwrap_or_else(|e| panic!("line {}: {spec:?}: {e}", row.line));
        assert_eq!(parsed.display(), row.get(2), "line {}: {spec:?}", row.line);
        let job_id: u32 = row.get(3).parse().unwrap();
        assert_eq!(
            format_squeue_array_job_id(job_id, &parsed.display()),
            row.get(4),
            "line {}: {spec:?}",
            row.line
        );
    }
}

use spur_core::grammar::values::size::*;
use spur_core::grammar::values::NO_VAL64;

use super::tsv::load;

#[test]
fn generated_str_to_mbytes() {
    for row in load("mbytes.tsv", true) {
        let input = row.get(0);
        let slurm: u64 = row.get(1).parse().unwrap();
        let ours = parse_megabytes(input);
        if input == "17592186044416T" {
            // Slurm's multiplication wraps to 0 here; Spur refuses the value instead.
            assert_eq!((slurm, ours), (0, None), "line {}", row.line);
            continue;
        }
        assert_eq!(
            ours.unwrap_or(NO_VAL64),
            slurm,
            "line {}: str_to_mbytes({input:?})",
            row.line
        );
    }
}

#[test]
fn generated_convert_num_unit() {
    for row in load("num_unit.tsv", true) {
        let num: f64 = row.get(0).parse().unwrap();
        let unit = match row.get(1) {
            "0" => SizeUnit::None,
            "1" => SizeUnit::Kilo,
            "2" => SizeUnit::Mega,
            other => panic!("unit {other}"),
        };
        let exact = row.get(2) == "1";
        assert_eq!(
            convert_num_unit(num, unit, exact),
            row.get(3),
            "line {}: {num} {unit:?} exact={exact}",
            row.line
        );
    }
}

#[test]
fn private_controller_displays() {
    // scontrol TRES= mem and squeue %m/%d seen on a private slurmctld 22.05.8 for --mem/--tmp values.
    for (input, shown) in [
        ("1536", "1.50G"),
        ("1025", "1025M"),
        ("2G", "2G"),
        ("1T", "1T"),
        ("2048", "2G"),
    ] {
        assert_eq!(
            format_megabytes(parse_megabytes(input).unwrap()),
            shown,
            "{input}"
        );
    }
    assert_eq!(format_megabytes(parse_mem("0").unwrap().0), "0");
}

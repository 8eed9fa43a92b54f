use spur_core::grammar::values::begin::*;

use super::tsv::load;

/// The fixed UTC offset of each time zone the vectors use (none of them has daylight saving time).
fn offset_of(tz: &str) -> i32 {
    match tz {
        "UTC" => 0,
        "Asia/Kolkata" => 19_800,
        "Etc/GMT+5" => -18_000,
        other => panic!("no offset known for {other}"),
    }
}

#[test]
fn generated_parse_time() {
    let rows = load("parse_time.tsv", true);
    assert!(rows.len() > 1000);
    for row in rows {
        let now = LocalNow {
            epoch_secs: row.get(1).parse().unwrap(),
            utc_offset_secs: offset_of(row.get(0)),
        };
        let past = row.get(2) == "1";
        let input = row.get(3);
        let want: i64 = row.get(4).parse().unwrap();
        let ctx = format!(
            "line {}: {input:?} tz={} now={} past={past}",
            row.line,
            row.get(0),
            row.get(1)
        );
        match parse_time(input, now, past) {
            // The tz database gives Asia/Kolkata its local mean time (+05:53:28) before 1854; Spur's fixed offset
            // cannot, so only UTC rows are compared for such early dates.
            Ok(v) if v < -3_600_000_000 && row.get(0) != "UTC" => {
                assert!(want < -3_600_000_000, "{ctx}")
            }
            Ok(v) => {
                assert_eq!(v, want, "{ctx}");
                assert_eq!(row.get(5), "", "{ctx}: Slurm complained");
            }
            Err(e) => {
                assert_eq!(want, 0, "{ctx}: refused ({e})");
                // A `now` that does not lead the text makes Slurm read past the string's end, so the position it
                // reports depends on whatever memory follows; only the refusal is compared there.
                if input.find("now").is_some_and(|i| i > 0) {
                    assert!(
                        row.get(5).starts_with("Invalid time specification (pos="),
                        "{ctx}"
                    );
                } else {
                    assert_eq!(e.to_string(), row.get(5), "{ctx}");
                }
            }
        }
    }
}

#[test]
fn reference_option_begin() {
    // unit_slurm_opt.tsv: -b 2000-01-01 is parse_time("2000-01-01"), "invalid time" is refused.
    let now = LocalNow {
        epoch_secs: 1_796_050_685,
        utc_offset_secs: 0,
    };
    assert_eq!(parse_begin("2000-01-01", now), Ok(946_684_800));
    assert!(matches!(
        parse_begin("invalid time", now),
        Err(BeginError::Invalid(Some(_)))
    ));
}

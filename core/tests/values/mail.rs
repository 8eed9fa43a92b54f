use spur_core::grammar::values::mail::*;

use super::tsv::load;

/// Slurm's `parse_mail_type` result, INFINITE16 meaning invalid.
fn ours(input: &str) -> u16 {
    parse_mail_type(input).map(|m| m.0).unwrap_or(0xffff)
}

#[test]
fn reference_mail_type() {
    for row in load("reference/mail_type.tsv", false) {
        let input = row.get(0);
        assert_eq!(
            ours(input).to_string(),
            row.get(1),
            "line {}: {input:?}",
            row.line
        );
        if let Ok(parsed) = parse_mail_type(input) {
            assert_eq!(
                parsed.to_string(),
                row.get(2),
                "line {}: print({input:?})",
                row.line
            );
        }
    }
}

#[test]
fn generated_mail_types() {
    for row in load("mail_types.tsv", true) {
        match row.get(0) {
            "parse" => assert_eq!(
                ours(row.get(1)).to_string(),
                row.get(2),
                "line {}",
                row.line
            ),
            "print" => {
                let bits: u16 = row.get(1).parse().unwrap();
                assert_eq!(MailType(bits).to_string(), row.get(2), "line {}", row.line);
            }
            other => panic!("unknown function {other}"),
        }
    }
}

//! Mail notification types: `--mail-type=<type>[,<type>...]` and the way scontrol prints `MailType=`.
//!
//! Slurm 22.05 semantics: comma-separated names matched in any case, empty items skipped, unknown names ignored as
//! long as one name is known. `NONE` anywhere clears everything. `ALL` is `BEGIN,END,FAIL,INVALID_DEPEND,REQUEUE,
//! STAGE_OUT`.

use std::fmt;

/// A set of mail notification types, with Slurm's `MAIL_*` bit values.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub struct MailType(pub u16);

impl MailType {
    /// No mail.
    pub const NONE: MailType = MailType(0);
    /// Job started.
    pub const BEGIN: MailType = MailType(1 << 0);
    /// Job ended.
    pub const END: MailType = MailType(1 << 1);
    /// Job failed.
    pub const FAIL: MailType = MailType(1 << 2);
    /// Job requeued.
    pub const REQUEUE: MailType = MailType(1 << 3);
    /// Time limit reached.
    pub const TIME_LIMIT: MailType = MailType(1 << 4);
    /// 90% of the time limit reached.
    pub const TIME_LIMIT_90: MailType = MailType(1 << 5);
    /// 80% of the time limit reached.
    pub const TIME_LIMIT_80: MailType = MailType(1 << 6);
    /// 50% of the time limit reached.
    pub const TIME_LIMIT_50: MailType = MailType(1 << 7);
    /// Burst buffer stage-out done.
    pub const STAGE_OUT: MailType = MailType(1 << 8);
    /// Mail for each array task, not just the array as a whole.
    pub const ARRAY_TASKS: MailType = MailType(1 << 9);
    /// A dependency can never be satisfied.
    pub const INVALID_DEPEND: MailType = MailType(1 << 10);
    /// What `ALL` means.
    pub const ALL: MailType = MailType(1 | 2 | 4 | 8 | (1 << 8) | (1 << 10));

    /// Whether every bit of `other` is set here.
    pub fn contains(self, other: MailType) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for MailType {
    type Output = MailType;
    fn bitor(self, rhs: MailType) -> MailType {
        MailType(self.0 | rhs.0)
    }
}

/// Names accepted on input (besides `NONE`), with their bits.
const INPUT_NAMES: &[(&str, MailType)] = &[
    ("BEGIN", MailType::BEGIN),
    ("END", MailType::END),
    ("FAIL", MailType::FAIL),
    ("INVALID_DEPEND", MailType::INVALID_DEPEND),
    ("REQUEUE", MailType::REQUEUE),
    ("ALL", MailType::ALL),
    ("STAGE_OUT", MailType::STAGE_OUT),
    ("TIME_LIMIT", MailType::TIME_LIMIT),
    ("TIME_LIMIT_90", MailType::TIME_LIMIT_90),
    ("TIME_LIMIT_80", MailType::TIME_LIMIT_80),
    ("TIME_LIMIT_50", MailType::TIME_LIMIT_50),
    ("ARRAY_TASKS", MailType::ARRAY_TASKS),
];

/// The order scontrol prints the names in.
const PRINT_ORDER: &[(&str, MailType)] = &[
    ("ARRAY_TASKS", MailType::ARRAY_TASKS),
    ("INVALID_DEPEND", MailType::INVALID_DEPEND),
    ("BEGIN", MailType::BEGIN),
    ("END", MailType::END),
    ("FAIL", MailType::FAIL),
    ("REQUEUE", MailType::REQUEUE),
    ("STAGE_OUT", MailType::STAGE_OUT),
    ("TIME_LIMIT_50", MailType::TIME_LIMIT_50),
    ("TIME_LIMIT_80", MailType::TIME_LIMIT_80),
    ("TIME_LIMIT_90", MailType::TIME_LIMIT_90),
    ("TIME_LIMIT", MailType::TIME_LIMIT),
];

/// A rejected `--mail-type`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MailTypeError {
    /// No known name in the list.
    #[error("Invalid --mail-type specification")]
    Invalid,
}

/// Parses `--mail-type` (Slurm's `parse_mail_type`).
pub fn parse_mail_type(input: &str) -> Result<MailType, MailTypeError> {
    let mut bits = MailType::NONE;
    let mut known = false;
    let mut none = false;
    for item in input.split(',').filter(|s| !s.is_empty()) {
        if item.eq_ignore_ascii_case("NONE") {
            none = true;
            known = true;
        } else if let Some((_, value)) = INPUT_NAMES
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(item))
        {
            bits = bits | *value;
            known = true;
        }
    }
    match (known, none) {
        (false, _) => Err(MailTypeError::Invalid),
        (true, true) => Ok(MailType::NONE),
        (true, false) => Ok(bits),
    }
}

impl fmt::Display for MailType {
    /// The `MailType=` form (Slurm's `print_mail_type`): `NONE`, or names in Slurm's fixed order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("NONE");
        }
        let names: Vec<&str> = PRINT_ORDER
            .iter()
            .filter(|(_, bit)| self.contains(*bit))
            .map(|(name, _)| *name)
            .collect();
        f.write_str(&names.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists() {
        assert_eq!(
            parse_mail_type("BEGIN,END"),
            Ok(MailType::BEGIN | MailType::END)
        );
        assert_eq!(parse_mail_type("begin"), Ok(MailType::BEGIN));
        assert_eq!(parse_mail_type("BEGIN,bogus"), Ok(MailType::BEGIN));
        assert_eq!(parse_mail_type("BEGIN,,END"), Ok(MailType(3)));
        assert_eq!(parse_mail_type("ALL,NONE"), Ok(MailType::NONE));
        assert_eq!(parse_mail_type("NONE,bogus"), Ok(MailType::NONE));
        assert_eq!(parse_mail_type("ALL"), Ok(MailType(1295)));
    }

    #[test]
    fn rejects_lists_without_a_known_name() {
        for bad in ["", ",", "bogus", " BEGIN", "BEGIN ", "BEGIN;END", "BEG"] {
            assert_eq!(parse_mail_type(bad), Err(MailTypeError::Invalid), "{bad:?}");
        }
        assert_eq!(
            MailTypeError::Invalid.to_string(),
            "Invalid --mail-type specification"
        );
    }

    #[test]
    fn prints_in_slurm_order() {
        assert_eq!(MailType::NONE.to_string(), "NONE");
        assert_eq!(
            MailType::ALL.to_string(),
            "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT"
        );
        assert_eq!(
            (MailType::TIME_LIMIT | MailType::TIME_LIMIT_90).to_string(),
            "TIME_LIMIT_90,TIME_LIMIT"
        );
        assert_eq!(MailType(2048).to_string(), "");
    }
}

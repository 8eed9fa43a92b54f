//! `strigger --get`: the header and one line per trigger, laid out as Slurm 22.05's strigger prints them.

use crate::model::trigger::{self, TriggerRecord, FLAG_PERM};

/// The header line (without its newline).
pub const HEADER: &str =
    "TRIG_ID RES_TYPE   RES_ID TYPE                                OFFSET USER     FLAGS PROGRAM";

/// One trigger's line (without its newline); `user` is the owner's name (strigger prints `unknown` for a uid
/// without one).
pub fn line(t: &TriggerRecord, user: &str) -> String {
    format!(
        "{:>7} {:<9} {:>7} {:<35} {:>6} {:<8} {:<5} {}",
        t.trig_id,
        trigger::res_type_name(t.res_type),
        t.res_id.as_deref().unwrap_or("(null)"),
        trigger::type_name(t.trig_type),
        t.offset,
        user,
        if t.flags & FLAG_PERM != 0 { "PERM" } else { "" },
        t.program
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_match_slurms_columns() {
        let t = TriggerRecord {
            trig_id: 2,
            res_type: trigger::RES_NODE,
            res_id: Some("*".into()),
            trig_type: trigger::UP,
            offset: 0,
            user_id: 0,
            group_id: 0,
            flags: FLAG_PERM,
            program: "/tmp/prog.sh a b".into(),
        };
        // As captured from Slurm 22.05.8's strigger --get.
        assert_eq!(
            line(&t, "root"),
            "      2 node            * up                                       0 root     PERM  /tmp/prog.sh a b"
        );
        let other = TriggerRecord {
            trig_id: 11,
            res_type: trigger::RES_OTHER,
            res_id: None,
            trig_type: trigger::BURST_BUFFER,
            flags: 0,
            offset: -10,
            ..t
        };
        assert_eq!(
            line(&other, "root"),
            "     11 other      (null) burst_buffer                           -10 root           /tmp/prog.sh a b"
        );
    }
}

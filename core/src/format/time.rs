//! Clock texts as Slurm prints them: local timestamps (`2026-11-30T14:57:35`), the `ctime`-style date line of
//! `squeue -l`/`sinfo -l`, and the three duration styles (`0:00` in squeue/sinfo columns, `00:00:02` in scontrol,
//! `UNLIMITED`/`infinite` for missing limits).
//!
//! The civil-date arithmetic is done here (days-from-civil in reverse) because core reads no clock and no time zone
//! database: callers pass the UTC offset in.

use crate::model::job::EpochSecs;

/// A broken-down local time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    /// 0 = Sunday.
    pub weekday: u32,
}

/// Splits `t + offset` into calendar fields (proleptic Gregorian calendar).
pub fn civil(t: EpochSecs, utc_offset_secs: i32) -> Civil {
    let local = t + i64::from(utc_offset_secs);
    let days = local.div_euclid(86_400);
    let secs = local.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    Civil {
        year,
        month,
        day,
        hour: (secs / 3600) as u32,
        minute: (secs / 60 % 60) as u32,
        second: (secs % 60) as u32,
        // 1970-01-01 was a Thursday.
        weekday: (days + 4).rem_euclid(7) as u32,
    }
}

/// Howard Hinnant's days-to-civil algorithm: exact for every day count an `i64` second count can produce.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `2026-11-30T14:57:35`, Slurm's default `SLURM_TIME_FORMAT=standard`.
pub fn iso(t: EpochSecs, utc_offset_secs: i32) -> String {
    let c = civil(t, utc_offset_secs);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}

/// A timestamp, or `zero_text` (`Unknown`, `N/A`, `None`) where Slurm holds 0.
pub fn iso_or(t: Option<EpochSecs>, utc_offset_secs: i32, zero_text: &str) -> String {
    match t {
        Some(t) if t != 0 => iso(t, utc_offset_secs),
        _ => zero_text.to_string(),
    }
}

const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `Mon Nov 30 14:57:34 2026` (strftime `%a %b %d %T %Y`), the date line `-l` and `-i` print above the header.
pub fn ctime(t: EpochSecs, utc_offset_secs: i32) -> String {
    let c = civil(t, utc_offset_secs);
    let weekday = WEEKDAYS[c.weekday as usize % 7];
    let month = MONTHS[(c.month as usize + 11) % 12];
    format!(
        "{weekday} {month} {:02} {:02}:{:02}:{:02} {}",
        c.day, c.hour, c.minute, c.second, c.year
    )
}

/// squeue/sinfo column style: `0:05`, `1:00:00`, `2-03:04:05` (hours and days only when needed).
pub fn compact_secs(secs: i64) -> String {
    let (days, hours, minutes, seconds) = split(secs);
    if days != 0 {
        format!("{days}-{hours:02}:{minutes:02}:{seconds:02}")
    } else if hours != 0 {
        format!("{hours}:{minutes:02}:{seconds:02}")
    } else {
        format!("{minutes}:{seconds:02}")
    }
}

/// squeue's elapsed-time style, which rejects negative or more-than-a-year values as `INVALID`.
pub fn squeue_secs(secs: i64) -> String {
    if !(0..=365 * 86_400).contains(&secs) {
        return "INVALID".to_string();
    }
    compact_secs(secs)
}

/// scontrol style (`secs2time_str`): `00:00:02`, `2-03:04:05`.
pub fn long_secs(secs: i64) -> String {
    let (days, hours, minutes, seconds) = split(secs);
    if days != 0 {
        format!("{days}-{hours:02}:{minutes:02}:{seconds:02}")
    } else {
        format!("{hours:02}:{minutes:02}:{seconds:02}")
    }
}

/// scontrol style for minute limits (`mins2time_str`): `UNLIMITED` for none.
pub fn long_minutes(minutes: Option<u32>) -> String {
    match minutes {
        None => "UNLIMITED".to_string(),
        Some(m) => long_secs(i64::from(m) * 60),
    }
}

fn split(secs: i64) -> (i64, i64, i64, i64) {
    (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_matches_capture() {
        assert_eq!(iso(1_796_050_655, 0), "2026-11-30T14:57:35");
        assert_eq!(iso(0, 0), "1970-01-01T00:00:00");
        assert_eq!(iso(951_782_400, 0), "2000-02-29T00:00:00");
        assert_eq!(iso(1_796_050_655, 3600), "2026-11-30T15:57:35");
        assert_eq!(iso(1_796_050_655, -15 * 3600), "2026-11-29T23:57:35");
    }

    #[test]
    fn ctime_matches_capture() {
        assert_eq!(ctime(1_796_050_654, 0), "Mon Nov 30 14:57:34 2026");
        assert_eq!(ctime(86_400 * 3, 0), "Sun Jan 04 00:00:00 1970");
    }

    #[test]
    fn iso_or_uses_zero_text() {
        assert_eq!(iso_or(None, 0, "Unknown"), "Unknown");
        assert_eq!(iso_or(Some(0), 0, "N/A"), "N/A");
    }

    #[test]
    fn durations() {
        assert_eq!(compact_secs(0), "0:00");
        assert_eq!(compact_secs(600), "10:00");
        assert_eq!(compact_secs(3600), "1:00:00");
        assert_eq!(compact_secs(86_400), "1-00:00:00");
        assert_eq!(squeue_secs(-1), "INVALID");
        assert_eq!(squeue_secs(366 * 86_400), "INVALID");
        assert_eq!(long_secs(2), "00:00:02");
        assert_eq!(long_secs(1_796_050_669), "20787-14:57:49");
        assert_eq!(long_minutes(Some(5)), "00:05:00");
        assert_eq!(long_minutes(None), "UNLIMITED");
    }

    proptest::proptest! {
        #[test]
        fn civil_round_trips(t in -10_000_000_000i64..10_000_000_000i64) {
            let c = civil(t, 0);
            let days = days_from_civil(c.year, c.month, c.day);
            let back = days * 86_400 + i64::from(c.hour) * 3600 + i64::from(c.minute) * 60 + i64::from(c.second);
            proptest::prop_assert_eq!(back, t);
        }
    }

    fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y.rem_euclid(400);
        let m = i64::from(m);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }
}

//! `SLURM_TIME_FORMAT`: how Slurm's commands print timestamps. `standard` (or unset, or empty) is
//! `2026-11-30T14:57:35`; `relative` picks a shorter form by the distance from today (`14:57:35` today,
//! `Tomorr 09:00`, `Fri 09:00`, `3 Dec 09:00`, `3 Dec 2027`); any other value containing `%` (and shorter than 32
//! bytes) is a strftime format. The conversions are done here, from the civil date, so core stays free of libc's
//! clock and locale (Slurm's clients run in the C locale's names, which are the ones used here).

use super::time::{civil, Civil};
use crate::model::job::EpochSecs;

/// The timestamp style chosen by `SLURM_TIME_FORMAT`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TimeFormat {
    #[default]
    Standard,
    Relative,
    /// A strftime format.
    Custom(String),
}

/// Slurm keeps a custom format in a 32-byte buffer: longer ones are refused.
const MAX_CUSTOM: usize = 32;

impl TimeFormat {
    /// Reads the variable's value. `Err` holds the message Slurm prints (after `error: `) for a value it refuses;
    /// it then keeps the standard format.
    pub fn from_env(value: Option<&str>) -> Result<TimeFormat, String> {
        match value {
            None | Some("") | Some("standard") => Ok(TimeFormat::Standard),
            Some("relative") => Ok(TimeFormat::Relative),
            Some(fmt) if fmt.contains('%') && fmt.len() < MAX_CUSTOM => {
                Ok(TimeFormat::Custom(fmt.to_string()))
            }
            Some(fmt) => Err(format!("invalid SLURM_TIME_FORMAT = '{fmt}'")),
        }
    }

    /// `t` in this style, in local time (`utc_offset_secs`); `now` places it for the relative style.
    pub fn render(&self, t: EpochSecs, utc_offset_secs: i32, now: EpochSecs) -> String {
        let when = civil(t, utc_offset_secs);
        match self {
            TimeFormat::Standard => strftime("%FT%T", &when),
            TimeFormat::Custom(fmt) => strftime(fmt, &when),
            TimeFormat::Relative => {
                let today = civil(now, utc_offset_secs);
                let distance = (when.year * 1000 + i64::from(day_of_year(&when)))
                    - (today.year * 1000 + i64::from(day_of_year(&today)));
                let fmt = match distance {
                    -1 => "Ystday %H:%M",
                    0 => "%H:%M:%S",
                    1 => "Tomorr %H:%M",
                    d if !(-365..=365).contains(&d) => "%-d %b %Y",
                    d if !(-1..=6).contains(&d) => "%-d %b %H:%M",
                    _ => "%a %H:%M",
                };
                strftime(fmt, &when)
            }
        }
    }
}

const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

/// 0-based day of the year, as `tm_yday`.
fn day_of_year(c: &Civil) -> u32 {
    const BEFORE: [u32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let month = (c.month.clamp(1, 12) - 1) as usize;
    let leap = u32::from(month >= 2 && is_leap(c.year));
    BEFORE[month] + leap + c.day - 1
}

/// glibc's strftime for the conversions Slurm users put in `SLURM_TIME_FORMAT`, in the C locale; the `-` flag
/// drops the padding (`%-d`). An unknown conversion is copied as written.
pub fn strftime(fmt: &str, c: &Civil) -> String {
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut chars = fmt.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }
        let unpadded = chars.next_if_eq(&'-').is_some();
        let Some(conv) = chars.next() else {
            out.push('%');
            if unpadded {
                out.push('-');
            }
            break;
        };
        let num = |v: i64, width: usize, pad: char| -> String {
            if unpadded {
                v.to_string()
            } else if pad == '0' {
                format!("{v:0width$}")
            } else {
                format!("{v:>width$}")
            }
        };
        let hour12 = match c.hour % 12 {
            0 => 12,
            h => h,
        };
        let weekday = WEEKDAYS[c.weekday as usize % 7];
        let month = MONTHS[(c.month.clamp(1, 12) - 1) as usize];
        let piece = match conv {
            'a' => weekday[..3].to_string(),
            'A' => weekday.to_string(),
            'b' | 'h' => month[..3].to_string(),
            'B' => month.to_string(),
            'C' => num(c.year.div_euclid(100), 2, '0'),
            'd' => num(i64::from(c.day), 2, '0'),
            'D' => strftime("%m/%d/%y", c),
            'e' => num(i64::from(c.day), 2, ' '),
            'F' => format!("{}-{:02}-{:02}", c.year, c.month, c.day),
            'H' => num(i64::from(c.hour), 2, '0'),
            'I' => num(i64::from(hour12), 2, '0'),
            'j' => num(i64::from(day_of_year(c)) + 1, 3, '0'),
            'k' => num(i64::from(c.hour), 2, ' '),
            'l' => num(i64::from(hour12), 2, ' '),
            'm' => num(i64::from(c.month), 2, '0'),
            'M' => num(i64::from(c.minute), 2, '0'),
            'n' => "\n".to_string(),
            'p' => if c.hour < 12 { "AM" } else { "PM" }.to_string(),
            'R' => strftime("%H:%M", c),
            'S' => num(i64::from(c.second), 2, '0'),
            't' => "\t".to_string(),
            'T' => strftime("%H:%M:%S", c),
            'u' => num(
                i64::from(if c.weekday == 0 { 7 } else { c.weekday }),
                1,
                '0',
            ),
            'w' => num(i64::from(c.weekday), 1, '0'),
            'y' => num(c.year.rem_euclid(100), 2, '0'),
            'Y' => c.year.to_string(),
            '%' => "%".to_string(),
            other => {
                let mut kept = String::from("%");
                if unpadded {
                    kept.push('-');
                }
                kept.push(other);
                kept
            }
        };
        out.push_str(&piece);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // 2026-12-07T20:45:35 UTC, a Monday.
    const T: EpochSecs = 1_796_676_335;

    #[test]
    fn values_slurm_accepts_and_refuses() {
        assert_eq!(TimeFormat::from_env(None), Ok(TimeFormat::Standard));
        assert_eq!(TimeFormat::from_env(Some("")), Ok(TimeFormat::Standard));
        assert_eq!(
            TimeFormat::from_env(Some("relative")),
            Ok(TimeFormat::Relative)
        );
        assert_eq!(
            TimeFormat::from_env(Some("%H")),
            Ok(TimeFormat::Custom("%H".into()))
        );
        assert_eq!(
            TimeFormat::from_env(Some("hours")),
            Err("invalid SLURM_TIME_FORMAT = 'hours'".into())
        );
        assert!(TimeFormat::from_env(Some(&"%H".repeat(16))).is_err());
    }

    #[test]
    fn standard_and_custom() {
        assert_eq!(TimeFormat::Standard.render(T, 0, T), "2026-12-07T20:45:35");
        let custom = TimeFormat::Custom("%a %-d %b %y %I%p %j %e|%%|%Q".into());
        assert_eq!(custom.render(T, 0, T), "Mon 7 Dec 26 08PM 341  7|%|%Q");
        assert_eq!(
            TimeFormat::Custom("%D %R %T".into()).render(T, 3600, T),
            "12/07/26 21:45 21:45:35"
        );
    }

    #[test]
    fn relative_by_distance_from_today() {
        let day = 86_400;
        let r = |t| TimeFormat::Relative.render(t, 0, T);
        assert_eq!(r(T), "20:45:35");
        assert_eq!(r(T - day), "Ystday 20:45");
        assert_eq!(r(T + day), "Tomorr 20:45");
        assert_eq!(r(T + 3 * day), "Thu 20:45");
        assert_eq!(r(T + 7 * day), "14 Dec 20:45");
        assert_eq!(r(T - 2 * day), "5 Dec 20:45");
        assert_eq!(r(T + 400 * day), "11 Jan 2028");
    }

    #[test]
    fn odd_formats_from_the_environment_print_as_written() {
        let c = civil(T, 0);
        assert_eq!(strftime("%", &c), "%");
        assert_eq!(strftime("%-", &c), "%-");
        assert_eq!(strftime("%-Q \u{e9}%\u{e9}", &c), "%-Q \u{e9}%\u{e9}");
        assert_eq!(strftime("%%%Y%", &c), "%2026%");
    }
}

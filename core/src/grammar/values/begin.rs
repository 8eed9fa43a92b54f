//! Absolute times: `--begin`, `--deadline` and `scontrol update StartTime=` values (Slurm's `parse_time`), resolved
//! against an injected "now" and a fixed local UTC offset.
//!
//! Forms (Slurm 22.05): `HH:MM[:SS][AM|PM]` (the next such time), `midnight`, `noon`, `fika` (15:00), `teatime`
//! (16:00), `today`, `tomorrow`, `MMDD[YY]`, `MM/DD[/YY]`, `MM.DD[.YY]`, `YYYY-MM-DD[THH:MM[:SS]]`,
//! `now[{+|-}count[seconds|minutes|hours|days|weeks]]` (bare counts are seconds) and `uts<epoch>`. Pieces may be
//! combined (`16:00 tomorrow`, `12/25-16:00`). A date without a year is the next one to come. `elevenses` does not
//! exist in 22.05. Slurm reads the text character by character with a few quirks that are kept here: an upper-case
//! `T` and `-` are skipped anywhere (so `Today` is refused), and `now` that does not start the text miscounts its
//! position and fails.

use std::fmt;

/// The current time as Slurm's clock and `localtime` would give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LocalNow {
    /// Seconds since the Unix epoch.
    pub epoch_secs: i64,
    /// Local time minus UTC, in seconds (for example 19800 for UTC+05:30).
    pub utc_offset_secs: i32,
}

/// A rejected time, with the position Slurm reports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid time specification (pos={pos}): {input}")]
pub struct ParseTimeError {
    /// Where Slurm stopped (may be -1 or past the end, as Slurm prints it).
    pub pos: i64,
    /// The text as given.
    pub input: String,
}

/// A rejected `--begin` (sbatch prints the [`ParseTimeError`] line first when there is one).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BeginError {
    /// Not a time, or a time that resolves to the epoch itself.
    #[error("Invalid --begin specification")]
    Invalid(Option<ParseTimeError>),
}

/// Days from 1970-01-01 to the given proleptic Gregorian date (month 1..=12, any day, which may overflow the month).
pub fn days_from_civil(year: i64, month: u32, day: i64) -> i64 {
    let m = i64::from(month);
    let y = if m <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468 + (day - 1)
}

/// The proleptic Gregorian date `(year, month 1..=12, day 1..=31)` of a day count from 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    // Both are in range by construction (day 1..=31, month 1..=12).
    (year, month as u32, day as u32)
}

/// A broken-down local time, in `struct tm` terms (month 0..=11, year as years since 1900).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Tm {
    year: i64,
    month: i64,
    mday: i64,
    hour: i64,
    min: i64,
    sec: i64,
}

fn localtime(epoch: i64, offset: i32) -> Tm {
    let local = epoch + i64::from(offset);
    let days = local.div_euclid(86_400);
    let secs = local.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    Tm {
        year: y - 1900,
        month: i64::from(m) - 1,
        mday: i64::from(d),
        hour: secs / 3600,
        min: secs / 60 % 60,
        sec: secs % 60,
    }
}

/// `mktime` for a fixed offset; Slurm treats a result of -1 as failure.
fn mktime(tm: Tm, offset: i32) -> Option<i64> {
    let year = tm.year + 1900 + tm.month.div_euclid(12);
    let month = u32::try_from(tm.month.rem_euclid(12) + 1).ok()?;
    let days = days_from_civil(year, month, tm.mday);
    let local = days * 86_400 + tm.hour * 3600 + tm.min * 60 + tm.sec;
    Some(local - i64::from(offset)).filter(|t| *t != -1)
}

/// Instants further than this from the epoch (about 317,000 years) are refused: Slurm's arithmetic has long wrapped
/// there, and refusing keeps every computation here in range.
const MAX_EPOCH: i64 = 10_000_000_000_000;

/// Marks a read past the string's terminator, which C would take from whatever memory follows.
const GARBAGE: u8 = 0xff;

/// The input as C sees it: a NUL at the end, unknown bytes after that.
struct Text<'a> {
    bytes: &'a [u8],
}

impl Text<'_> {
    fn at(&self, i: i64) -> u8 {
        match usize::try_from(i) {
            Ok(i) if i < self.bytes.len() => self.bytes[i],
            Ok(i) if i == self.bytes.len() => 0,
            _ => GARBAGE,
        }
    }

    fn digit(&self, i: i64) -> Option<i64> {
        let c = self.at(i);
        c.is_ascii_digit().then(|| i64::from(c - b'0'))
    }

    /// Case-insensitive prefix test at `i` (never matches past the end).
    fn starts_with_ci(&self, i: i64, word: &str) -> bool {
        let Ok(start) = usize::try_from(i) else {
            return false;
        };
        self.bytes
            .get(start..start + word.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(word.as_bytes()))
    }

    fn len(&self) -> i64 {
        i64::try_from(self.bytes.len()).unwrap_or(i64::MAX)
    }
}

fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

const UNITS: &[(&str, i64)] = &[
    ("seconds", 1),
    ("second", 1),
    ("minutes", 60),
    ("minute", 60),
    ("hours", 3600),
    ("hour", 3600),
    ("days", 86_400),
    ("day", 86_400),
    ("weeks", 604_800),
    ("week", 604_800),
];

/// The count and unit after `now+`/`now-`; `pos` is at the sign. Returns the delta and the new position.
fn get_delta(t: &Text, pos: i64) -> Result<(i64, i64), i64> {
    let mut offset = pos + 1;
    let mut count: i64 = 0;
    let mut digits = 0;
    while t.at(offset) != 0 && t.at(offset) != b'\n' {
        let c = t.at(offset);
        if is_c_space(c) {
            offset += 1;
            continue;
        }
        if let Some((word, mult)) = UNITS.iter().find(|(w, _)| t.starts_with_ci(offset, w)) {
            offset += word.len() as i64;
            count = count.wrapping_mul(*mult);
            break;
        }
        match t.digit(offset) {
            Some(d) => {
                count = count.wrapping_mul(10).wrapping_add(d);
                digits += 1;
                offset += 1;
            }
            None => return Err(offset - 1),
        }
    }
    if digits == 0 {
        return Err(pos);
    }
    Ok((count, offset - 1))
}

/// `HH:MM[:SS] [AM|PM]` at `pos`; returns `(hour, minute, second, new pos)` or the error position.
fn get_time(t: &Text, pos: i64) -> Result<(i64, i64, i64, i64), i64> {
    let mut offset = pos;
    let mut hr = t.digit(offset).ok_or(offset)?;
    offset += 1;
    if t.at(offset) != b':' {
        hr = hr * 10 + t.digit(offset).ok_or(offset)?;
        offset += 1;
    }
    if hr > 23 {
        return Err(offset - 2);
    }
    if t.at(offset) != b':' {
        return Err(offset);
    }
    offset += 1;
    let two_digits = |offset: &mut i64| -> Result<i64, i64> {
        let a = t.digit(*offset).ok_or(*offset)?;
        *offset += 1;
        let b = t.digit(*offset).ok_or(*offset)?;
        *offset += 1;
        Ok(a * 10 + b)
    };
    let min = two_digits(&mut offset)?;
    if min > 59 {
        return Err(offset - 2);
    }
    let mut sec = 0;
    if t.at(offset) == b':' {
        offset += 1;
        sec = two_digits(&mut offset)?;
        if sec > 59 {
            return Err(offset - 2);
        }
    }
    while is_c_space(t.at(offset)) {
        offset += 1;
    }
    if t.starts_with_ci(offset, "pm") {
        hr += 12;
        if hr > 23 {
            if hr != 24 {
                return Err(offset);
            }
            hr = 12;
        }
        offset += 2;
    } else if t.starts_with_ci(offset, "am") {
        if hr > 11 {
            if hr != 12 {
                return Err(offset);
            }
            hr = 0;
        }
        offset += 2;
    }
    Ok((hr, min, sec, offset - 1))
}

/// A date found by [`get_date`]: month 0..=11, day, year since 1900 when one was given.
struct Date {
    month: i64,
    mday: i64,
    year: Option<i64>,
    pos: i64,
}

/// Reads one or two digits (the first unchecked, as Slurm does) for a month or day.
fn one_or_two(t: &Text, offset: &mut i64, first_checked: bool) -> Result<i64, i64> {
    let first = if first_checked {
        t.digit(*offset).ok_or(*offset)?
    } else {
        i64::from(t.at(*offset)) - i64::from(b'0')
    };
    *offset += 1;
    Ok(match t.digit(*offset) {
        Some(d) => {
            *offset += 1;
            first * 10 + d
        }
        None => first,
    })
}

fn get_date(t: &Text, pos: i64) -> Result<Date, i64> {
    let mut offset = pos;
    if t.len() >= offset + 7 && t.at(offset + 4) == b'-' && t.at(offset + 7) == b'-' {
        let mut yr = 0;
        for _ in 0..4 {
            yr = yr * 10 + t.digit(offset).ok_or(offset)?;
            offset += 1;
        }
        offset += 1;
        let mon = one_or_two(t, &mut offset, false)?;
        if !(1..=12).contains(&mon) {
            return Err(offset - 2);
        }
        offset += 1;
        let day = one_or_two(t, &mut offset, true)?;
        if !(1..=31).contains(&day) {
            return Err(offset - 2);
        }
        return Ok(Date {
            month: mon - 1,
            mday: day,
            year: Some(yr - 1900),
            pos: offset - 1,
        });
    }
    let mon = one_or_two(t, &mut offset, false)?;
    if !(1..=12).contains(&mon) {
        return Err(offset - 2);
    }
    if matches!(t.at(offset), b'.' | b'/') {
        offset += 1;
    }
    let day = one_or_two(t, &mut offset, true)?;
    if !(1..=31).contains(&day) {
        return Err(offset - 2);
    }
    if matches!(t.at(offset), b'.' | b'/') {
        offset += 1;
    }
    let mut yr = 0;
    if let Some(d) = t.digit(offset) {
        offset += 1;
        yr = d * 10 + t.digit(offset).ok_or(offset)?;
        offset += 1;
    }
    // A two-digit year of 00 counts as no year at all, as in Slurm.
    let year = (yr != 0).then_some(yr + 100);
    Ok(Date {
        month: mon - 1,
        mday: day,
        year,
        pos: offset - 1,
    })
}

/// What the scan has found so far; -1 means "not given", as in Slurm.
struct Found {
    hour: i64,
    minute: i64,
    second: i64,
    month: i64,
    mday: i64,
    year: i64,
}

impl Found {
    fn set_date(&mut self, tm: Tm) {
        (self.month, self.mday, self.year) = (tm.month, tm.mday, tm.year);
    }

    fn set_clock(&mut self, hour: i64, minute: i64, second: i64) {
        (self.hour, self.minute, self.second) = (hour, minute, second);
    }
}

fn parse_uts(input: &str) -> Option<i64> {
    let digits = input.get(3..)?;
    let body = digits.trim_start_matches(|c: char| c.is_ascii() && is_c_space(c as u8));
    let unsigned = body.strip_prefix(['+', '-']).unwrap_or(body);
    if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value = body.parse::<i64>().ok()?;
    (value >= 1_000_000 && value != i64::MAX).then_some(value)
}

/// Scans the text, filling `found`; returns the error position on failure.
fn scan(t: &Text, now: LocalNow, found: &mut Found) -> Result<(), i64> {
    let now_tm = localtime(now.epoch_secs, now.utc_offset_secs);
    let mut pos: i64 = 0;
    loop {
        let c = t.at(pos);
        if c == 0 || c == b'\n' {
            return Ok(());
        }
        if matches!(c, b' ' | b'\t' | b'-' | b'T') {
            pos += 1;
            continue;
        }
        let keyword = |w: &str| t.starts_with_ci(pos, w);
        if keyword("today") {
            found.set_date(now_tm);
            pos += 4;
        } else if keyword("tomorrow") {
            found.set_date(localtime(now.epoch_secs + 86_400, now.utc_offset_secs));
            pos += 7;
        } else if keyword("midnight") {
            found.set_clock(0, 0, 0);
            pos += 7;
        } else if keyword("noon") {
            found.set_clock(12, 0, 0);
            pos += 3;
        } else if keyword("fika") {
            found.set_clock(15, 0, 0);
            pos += 3;
        } else if keyword("teatime") {
            found.set_clock(16, 0, 0);
            pos += 6;
        } else if keyword("now") {
            let mut delta = 0;
            let mut i = pos + 3;
            loop {
                match t.at(i) {
                    sign @ (b'+' | b'-') => {
                        // Slurm adds the absolute index to the position here, which only works when `now` leads.
                        pos += i;
                        let (d, p) = get_delta(t, pos)?;
                        pos = p;
                        delta = if sign == b'-' { d.wrapping_neg() } else { d };
                        break;
                    }
                    b' ' | b'\t' => i += 1,
                    0 | b'\n' => {
                        pos += i - 1;
                        break;
                    }
                    _ => return Err(pos + i),
                }
            }
            let later = now
                .epoch_secs
                .checked_add(delta)
                .filter(|t| t.abs() <= MAX_EPOCH)
                .ok_or(pos)?;
            let later = localtime(later, now.utc_offset_secs);
            found.set_date(later);
            found.set_clock(later.hour, later.min, later.sec);
        } else if !c.is_ascii_digit() {
            return Err(pos);
        } else if t.at(pos + 1) == b':' || t.at(pos + 2) == b':' {
            let (h, m, s, p) = get_time(t, pos)?;
            found.set_clock(h, m, s);
            pos = p;
        } else {
            let date = get_date(t, pos)?;
            (found.month, found.mday) = (date.month, date.mday);
            if let Some(year) = date.year {
                found.year = year;
            }
            pos = date.pos;
        }
        pos += 1;
    }
}

/// Fills in what the text left out, as Slurm does: a date alone is midnight, a time alone is the next such time,
/// and a missing year is this year or the next (the last, with `past`).
fn resolve(mut f: Found, now_tm: Tm, now: LocalNow, past: bool) -> Tm {
    if f.hour == -1 {
        f.hour = 0;
        f.minute = 0;
    } else if f.month == -1 {
        if past || f.hour > now_tm.hour || (f.hour == now_tm.hour && f.minute > now_tm.min) {
            f.set_date(now_tm);
        } else {
            f.set_date(localtime(now.epoch_secs + 86_400, now.utc_offset_secs));
        }
    }
    if f.year == -1 {
        let later_this_year = (f.month, f.mday, f.hour, f.minute)
            > (now_tm.month, now_tm.mday, now_tm.hour, now_tm.min);
        f.year = if past {
            now_tm.year - i64::from(f.month > now_tm.month)
        } else {
            now_tm.year + i64::from(!later_this_year)
        };
    }
    Tm {
        year: f.year,
        month: f.month,
        mday: f.mday,
        hour: f.hour,
        min: f.minute,
        sec: f.second,
    }
}

/// Parses a time as Slurm's `parse_time(input, past)`: epoch seconds, or `Ok(0)` when the text names no time at
/// all (blank), which Slurm returns without complaint. `past` looks backwards for an incomplete date.
pub fn parse_time(input: &str, now: LocalNow, past: bool) -> Result<i64, ParseTimeError> {
    let error = |pos| ParseTimeError {
        pos,
        input: input.to_string(),
    };
    if now.epoch_secs.abs() > MAX_EPOCH {
        return Err(error(0));
    }
    if input
        .get(..3)
        .is_some_and(|p| p.eq_ignore_ascii_case("uts"))
    {
        return parse_uts(input).ok_or_else(|| error(0));
    }
    let text = Text {
        bytes: input.as_bytes(),
    };
    let mut found = Found {
        hour: -1,
        minute: -1,
        second: 0,
        month: -1,
        mday: -1,
        year: -1,
    };
    scan(&text, now, &mut found).map_err(error)?;
    if found.hour == -1 && found.month == -1 {
        return Ok(0);
    }
    let now_tm = localtime(now.epoch_secs, now.utc_offset_secs);
    let tm = resolve(found, now_tm, now, past);
    // Slurm reports a failed mktime at the end of the text.
    mktime(tm, now.utc_offset_secs).ok_or_else(|| error(text.len()))
}

/// Parses `--begin`: like [`parse_time`], but a result of 0 (nothing given, or the epoch itself) is refused, as
/// sbatch does.
pub fn parse_begin(input: &str, now: LocalNow) -> Result<i64, BeginError> {
    match parse_time(input, now, false) {
        Ok(0) => Err(BeginError::Invalid(None)),
        Ok(t) => Ok(t),
        Err(e) => Err(BeginError::Invalid(Some(e))),
    }
}

impl fmt::Display for LocalNow {
    /// `YYYY-MM-DDTHH:MM:SS` local time, the form scontrol prints (`SubmitTime=2026-11-30T14:58:01`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_local_time(self.epoch_secs, self.utc_offset_secs))
    }
}

/// Formats an instant as scontrol prints times (`%FT%T` in local time).
pub fn format_local_time(epoch_secs: i64, utc_offset_secs: i32) -> String {
    let tm = localtime(epoch_secs, utc_offset_secs);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        tm.year + 1900,
        tm.month + 1,
        tm.mday,
        tm.hour,
        tm.min,
        tm.sec
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-30T14:58:05 UTC, the reference cluster's clock.
    const NOW: LocalNow = LocalNow {
        epoch_secs: 1_796_050_685,
        utc_offset_secs: 0,
    };

    fn at(input: &str) -> Result<i64, ParseTimeError> {
        parse_time(input, NOW, false)
    }

    #[test]
    fn civil_round_trip() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        for days in [-800_000, -1, 0, 59, 60, 11_016, 20_787, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, i64::from(d)), days);
        }
        assert_eq!(days_from_civil(2027, 2, 31), days_from_civil(2027, 3, 3));
    }

    #[test]
    fn relative_and_named_times() {
        assert_eq!(at("now+1hour"), Ok(NOW.epoch_secs + 3600));
        assert_eq!(at("now+60"), Ok(NOW.epoch_secs + 60));
        assert_eq!(at("now-1hour"), Ok(NOW.epoch_secs - 3600));
        assert_eq!(at("16:00"), Ok(1_796_054_400));
        assert_eq!(at("14:58"), Ok(1_796_137_080), "already past: tomorrow");
        assert_eq!(at("noon"), Ok(1_796_126_400));
        assert_eq!(at("fika"), Ok(1_796_050_800));
        assert_eq!(at("tomorrow"), Ok(1_796_083_200));
        assert_eq!(at("4:00PM"), Ok(1_796_054_400));
    }

    #[test]
    fn dates() {
        assert_eq!(at("2027-01-02T03:04:05"), Ok(1_798_859_045));
        assert_eq!(at("12/25"), Ok(1_798_156_800));
        assert_eq!(
            at("11/30"),
            Ok(1_827_532_800),
            "today's date at midnight has passed: next year"
        );
        assert_eq!(at("122527"), at("12/25/27"));
    }

    #[test]
    fn slurm_errors_and_positions() {
        assert_eq!(
            at("bogus").unwrap_err().to_string(),
            "Invalid time specification (pos=0): bogus"
        );
        assert_eq!(at("elevenses").unwrap_err().pos, 0);
        assert_eq!(at("Today").unwrap_err().pos, 1);
        assert_eq!(at("0").unwrap_err().pos, -1);
        assert_eq!(at("  now").unwrap_err().pos, 7);
        assert_eq!(at("now+10sec").unwrap_err().pos, 5);
        assert_eq!(at(""), Ok(0));
        assert_eq!(parse_begin("", NOW), Err(BeginError::Invalid(None)));
        assert_eq!(
            BeginError::Invalid(None).to_string(),
            "Invalid --begin specification"
        );
    }

    #[test]
    fn offsets_and_formatting() {
        let ist = LocalNow {
            epoch_secs: NOW.epoch_secs,
            utc_offset_secs: 19_800,
        };
        assert_eq!(ist.to_string(), "2026-11-30T20:28:05");
        assert_eq!(parse_time("21:00", ist, false), Ok(1_796_052_600));
        assert_eq!(format_local_time(1_796_050_681, 0), "2026-11-30T14:58:01");
    }
}

//! `--cpu-freq=p1[-p2[:gov]]`: a frequency, a range, a governor, or a range with a governor.
//!
//! Frequencies are kHz numbers or `low`, `medium`, `high`, `highm1`. The checks and their order follow what
//! Slurm 22.05 reports for malformed values; whether a governor is allowed by `CpuFreqGovernors` is a
//! configuration question left to the caller.

use std::fmt;

/// A named CPU frequency governor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Governor {
    Conservative,
    OnDemand,
    Performance,
    PowerSave,
    UserSpace,
    SchedUtil,
}

impl Governor {
    const ALL: [Governor; 6] = [
        Governor::Conservative,
        Governor::OnDemand,
        Governor::Performance,
        Governor::PowerSave,
        Governor::UserSpace,
        Governor::SchedUtil,
    ];

    /// The governor's name as Slurm prints it.
    pub fn name(self) -> &'static str {
        match self {
            Governor::Conservative => "Conservative",
            Governor::OnDemand => "OnDemand",
            Governor::Performance => "Performance",
            Governor::PowerSave => "PowerSave",
            Governor::UserSpace => "UserSpace",
            Governor::SchedUtil => "SchedUtil",
        }
    }

    fn parse(s: &str) -> Option<Governor> {
        Governor::ALL
            .into_iter()
            .find(|g| g.name().eq_ignore_ascii_case(s))
    }

    /// Slurm encodes governors as flag values above every frequency; a governor used as the low end of a range
    /// is compared with that value, which is why `performance-10` is "not below" 10.
    fn code(self) -> u32 {
        match self {
            Governor::Conservative => 0x8800_0000,
            Governor::OnDemand => 0x8400_0000,
            Governor::Performance => 0x8200_0000,
            Governor::PowerSave => 0x8100_0000,
            Governor::UserSpace => 0x8080_0000,
            Governor::SchedUtil => 0x8040_0000,
        }
    }
}

impl fmt::Display for Governor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One end of a frequency range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CpuFreqValue {
    /// kHz.
    Khz(u32),
    Low,
    Medium,
    High,
    /// The second highest frequency.
    HighM1,
    /// A governor where a frequency was expected (only accepted as the low end).
    Governor(Governor),
}

impl CpuFreqValue {
    fn code(self) -> u32 {
        match self {
            CpuFreqValue::Khz(k) => k,
            CpuFreqValue::Low => 0x8000_0001,
            CpuFreqValue::Medium => 0x8000_0002,
            CpuFreqValue::High => 0x8000_0003,
            CpuFreqValue::HighM1 => 0x8000_0004,
            CpuFreqValue::Governor(g) => g.code(),
        }
    }
}

/// A parsed `--cpu-freq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CpuFreq {
    pub min: Option<CpuFreqValue>,
    pub max: Option<CpuFreqValue>,
    pub governor: Option<Governor>,
}

/// Parses `--cpu-freq`; the error is Slurm's first message line (the caller adds "Invalid --cpu-freq argument").
pub fn parse_cpu_freq(arg: &str) -> Result<CpuFreq, String> {
    let (p1, gov) = match arg.split_once(':') {
        // Anything after a second colon is ignored, as Slurm does.
        Some((p, g)) => (p, Some(g.split(':').next().unwrap_or(""))),
        None => (arg, None),
    };
    let mut out = CpuFreq::default();
    if let Some((lo, hi)) = p1.split_once('-') {
        let min = freq(lo, true)?;
        let max = freq(hi, false)?;
        if min.code() > max.code() {
            return Err(format!("min cpu-frec ({lo}) must be < max cpu-freq ({hi})"));
        }
        out.min = Some(min);
        out.max = Some(max);
        if let Some(g) = gov {
            out.governor = Some(
                Governor::parse(g).ok_or_else(|| format!("illegal governor: {g} on --cpu-freq"))?,
            );
        }
        return Ok(out);
    }
    if let Some(g) = Governor::parse(p1) {
        if let Some(extra) = gov {
            return Err(format!(
                "governor cannot be specified twice {p1}{{-}}:{extra} in --cpu-freq"
            ));
        }
        out.governor = Some(g);
        return Ok(out);
    }
    let single = freq(p1, false)?;
    if let Some(g) = gov {
        return Err(format!("gov on cpu-frec ({g}) illegal without max"));
    }
    out.max = Some(single);
    Ok(out)
}

/// One frequency; `allow_governor` for the low end of a range.
fn freq(tok: &str, allow_governor: bool) -> Result<CpuFreqValue, String> {
    let named = [
        ("low", CpuFreqValue::Low),
        ("medium", CpuFreqValue::Medium),
        ("highm1", CpuFreqValue::HighM1),
        ("high", CpuFreqValue::High),
    ];
    if let Some((_, v)) = named.iter().find(|(n, _)| tok.eq_ignore_ascii_case(n)) {
        return Ok(*v);
    }
    if allow_governor {
        if let Some(g) = Governor::parse(tok) {
            return Ok(CpuFreqValue::Governor(g));
        }
    }
    // strtoul keeps leading digits and Slurm casts the result to 32 bits; zero means "not a frequency".
    let (n, _) = super::strtol_end(tok);
    match u32::try_from(n.rem_euclid(1 << 32)).unwrap_or(0) {
        0 => Err(format!("unrecognized --cpu-freq argument \"{tok}\"")),
        k => Ok(CpuFreqValue::Khz(k)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        parse_cpu_freq(s).unwrap_err()
    }

    #[test]
    fn accepts_what_slurm_accepts() {
        let f = parse_cpu_freq("10-100:PowerSave").unwrap();
        assert_eq!(f.min, Some(CpuFreqValue::Khz(10)));
        assert_eq!(f.max, Some(CpuFreqValue::Khz(100)));
        assert_eq!(f.governor, Some(Governor::PowerSave));
        let f = parse_cpu_freq("low-highm1:Performance").unwrap();
        assert_eq!(
            (f.min, f.max),
            (Some(CpuFreqValue::Low), Some(CpuFreqValue::HighM1))
        );
        assert_eq!(
            parse_cpu_freq("Performance").unwrap().governor,
            Some(Governor::Performance)
        );
        assert_eq!(
            parse_cpu_freq("1000x").unwrap().max,
            Some(CpuFreqValue::Khz(1000))
        );
        assert_eq!(
            parse_cpu_freq("10-20-30").unwrap().max,
            Some(CpuFreqValue::Khz(20))
        );
        assert_eq!(
            parse_cpu_freq("99999999999").unwrap().max,
            Some(CpuFreqValue::Khz(1_215_752_191))
        );
        assert!(parse_cpu_freq("10-10").is_ok());
        assert!(parse_cpu_freq("10-low").is_ok());
        assert!(parse_cpu_freq("10-20:performance:x").is_ok());
    }

    #[test]
    fn errors_read_like_slurm() {
        assert_eq!(
            err("invalid"),
            "unrecognized --cpu-freq argument \"invalid\""
        );
        assert_eq!(err(""), "unrecognized --cpu-freq argument \"\"");
        assert_eq!(err("0x10"), "unrecognized --cpu-freq argument \"0x10\"");
        assert_eq!(
            err("4294967296"),
            "unrecognized --cpu-freq argument \"4294967296\""
        );
        assert_eq!(err("-5"), "unrecognized --cpu-freq argument \"\"");
        assert_eq!(err(":performance"), "unrecognized --cpu-freq argument \"\"");
        assert_eq!(
            err("low:ondemand"),
            "gov on cpu-frec (ondemand) illegal without max"
        );
        assert_eq!(err("low:"), "gov on cpu-frec () illegal without max");
        assert_eq!(err("10-20:bogus"), "illegal governor: bogus on --cpu-freq");
        assert_eq!(
            err("Performance:x"),
            "governor cannot be specified twice Performance{-}:x in --cpu-freq"
        );
        assert_eq!(
            err("high-low"),
            "min cpu-frec (high) must be < max cpu-freq (low)"
        );
        assert_eq!(
            err("performance-10"),
            "min cpu-frec (performance) must be < max cpu-freq (10)"
        );
        assert_eq!(
            err("10-performance"),
            "unrecognized --cpu-freq argument \"performance\""
        );
    }
}

//! Errors of hostlist parsing, worded as Slurm 22.05 words them.
//!
//! `scontrol show hostnames n[3-1]` prints two lines on stderr:
//!
//! ```text
//! scontrol: error: _parse_single_range: Invalid range: `3-1'
//! Invalid hostlist: n[3-1]
//! ```
//!
//! The first comes from Slurm's logger while it parses, the second from scontrol once parsing failed. A
//! [`HostlistError`] carries both: [`HostlistError::logged`] holds the logged lines (a [`RangeError`] displays as
//! the text after `error: `) and `Display` gives the last line. Slurm also logs range errors it then ignores (a bad
//! range inside a bracket group of a prefix that is itself repeated), so parsing can succeed with warnings; see
//! [`Hostlist::parse_with_warnings`](super::Hostlist::parse_with_warnings).

/// A bracket range Slurm rejects; `Display` is the text Slurm logs after `error: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    /// Not a number, a descending range, an `x` anywhere, or an empty element (`n[1,,2]`).
    #[error("_parse_single_range: Invalid range: `{0}'")]
    Invalid(String),
    /// More than [`MAX_RANGE_HOSTS`](super::MAX_RANGE_HOSTS) hosts in one range. Spur also says this for
    /// `n[0-99999999999999999999]`, which Slurm lets through by accident (its count wraps around to 0).
    #[error("_parse_single_range: Too many hosts in range `{0}'")]
    TooManyHosts(String),
}

/// Why a hostlist expression is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidReason {
    /// A bracket range is malformed; Slurm logs it (it is also the last entry of [`HostlistError::logged`]).
    Range(RangeError),
    /// Something follows the closing bracket (`n[1-2]x`); Slurm logs nothing for this.
    TextAfterBracket,
    /// The bracket groups before the last one repeat the prefix more than
    /// [`MAX_PREFIX_HOSTS`](super::MAX_PREFIX_HOSTS) times; Slurm logs nothing for this.
    TooManyPrefixes,
    /// Spur's own bound, where Slurm would try to build a list too big for memory: bracket groups in a prefix that
    /// need more than [`MAX_PRODUCT_BYTES`](super::MAX_PRODUCT_BYTES) or nest deeper than
    /// [`MAX_PREFIX_GROUPS`](super::MAX_PREFIX_GROUPS), or [`expand`](super::expand) asked for more than
    /// [`MAX_EXPAND_HOSTS`](super::MAX_EXPAND_HOSTS) names. Slurm logs nothing for these.
    TooLarge,
}

/// A hostlist expression Slurm would refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostlistError {
    /// scontrol prints the logged lines as `scontrol: error: <line>`, then this error's text.
    #[error("Invalid hostlist: {input}")]
    Invalid {
        input: String,
        reason: InvalidReason,
        logged: Vec<RangeError>,
    },
    /// More than [`MAX_BRACKET_RANGES`](super::MAX_BRACKET_RANGES) comma-separated ranges in one bracket group.
    /// Slurm treats this as fatal: scontrol prints `scontrol: fatal: <this text>` and exits with status 1.
    #[error("_parse_range_list: Too many ranges, can't process entire list")]
    TooManyRanges {
        input: String,
        logged: Vec<RangeError>,
    },
}

impl HostlistError {
    /// The expression that failed to parse.
    pub fn input(&self) -> &str {
        match self {
            Self::Invalid { input, .. } | Self::TooManyRanges { input, .. } => input,
        }
    }

    /// The lines Slurm logs with `error: ` before it reports this error, oldest first.
    pub fn logged(&self) -> &[RangeError] {
        match self {
            Self::Invalid { logged, .. } | Self::TooManyRanges { logged, .. } => logged,
        }
    }

    /// Slurm reports this with `fatal: ` and exits instead of printing `Invalid hostlist`.
    pub fn is_fatal(&self) -> bool {
        matches!(self, Self::TooManyRanges { .. })
    }
}

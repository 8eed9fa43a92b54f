//! Errors and warnings of the configuration parsers, with Slurm's texts and the file and line they come from.

use std::fmt;

use thiserror::Error;

/// Where a logical line starts: the file name as the caller or an `include` gave it, and a 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Location {
    pub file: String,
    pub line: usize,
}

impl Location {
    pub fn new(file: impl Into<String>, line: usize) -> Self {
        Self {
            file: file.into(),
            line,
        }
    }
}

/// What went wrong. The `Display` text is the line Slurm 22.05 logs for the same problem, without its location.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfErrorKind {
    /// Text left on a line that is not a `key=value` pair. Slurm prints the location inside this message, so
    /// [`ConfError`]'s `Display` does too.
    #[error("Parse error: \"{leftover}\"")]
    Parse { leftover: String },
    #[error("Parsing error at unrecognized key: {key}")]
    UnrecognizedKey { key: String },
    #[error("{key} value \"{value}\" is not a valid number")]
    NotANumber16 { key: String, value: String },
    #[error("{key} value ({value}) is not a valid number")]
    NotANumber { key: String, value: String },
    #[error("\"{value}\" is not a valid number")]
    NotALong { value: String },
    #[error("{key} value ({value}) is out of range")]
    OutOfRange { key: String, value: String },
    #[error("{key} value ({value}) is less than zero")]
    Negative { key: String, value: String },
    #[error("{key} value ({value}) is greater than {max}")]
    TooLarge {
        key: String,
        value: String,
        max: u64,
    },
    #[error("\"{value}\" is not a valid option for \"{key}\"")]
    NotABoolean { key: String, value: String },
    #[error("The option \"{key}\" is defunct, see man slurm.conf.")]
    Defunct { key: String },
    /// `Bad value "X" for Key`, Slurm's text for values of the wrong shape.
    #[error("Bad value \"{value}\" for {key}")]
    BadValue { key: String, value: String },
    #[error("Invalid {key} {value}")]
    Invalid { key: String, value: String },
    #[error("{key} not allowed with {line_key}=DEFAULT")]
    NotAllowedInDefault { key: String, line_key: String },
    #[error("'{value}' is a reserved word disallowed for use with {key}")]
    ReservedWord { key: String, value: String },
    #[error("unable to read \"{path}\": {reason}")]
    Unreadable { path: String, reason: String },
    #[error("include of \"{path}\" loops back to a file that is being read")]
    IncludeLoop { path: String },
    #[error("include of \"{path}\" nests deeper than {max} files")]
    IncludeTooDeep { path: String, max: usize },
    #[error("Did not get ClusterName for include path")]
    IncludeNeedsClusterName,
    #[error("\"Include\" failed")]
    IncludeFailed,
    #[error("{key} {n} specified more than once, latest value used", n = 1)]
    Duplicate { key: String },
    /// Any other Slurm message, verbatim.
    #[error("{0}")]
    Other(String),
}

/// One error or warning, located where Slurm would locate it (some whole-file checks have no line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfError {
    pub location: Option<Location>,
    pub kind: ConfErrorKind,
}

impl ConfError {
    pub fn at(location: &Location, kind: ConfErrorKind) -> Self {
        Self {
            location: Some(location.clone()),
            kind,
        }
    }

    pub fn global(kind: ConfErrorKind) -> Self {
        Self {
            location: None,
            kind,
        }
    }
}

impl ConfError {
    /// The whole line Slurm logs for this problem (for most kinds Slurm gives no location).
    pub fn slurm_text(&self) -> String {
        match (&self.kind, &self.location) {
            (ConfErrorKind::Parse { leftover }, Some(l)) => {
                format!(
                    "Parse error in file {} line {}: \"{}\"",
                    l.file, l.line, leftover
                )
            }
            (ConfErrorKind::IncludeFailed, Some(l)) => {
                format!("\"Include\" failed in file {} line {}", l.file, l.line)
            }
            (kind, _) => kind.to_string(),
        }
    }
}

/// Slurm's text, followed by `in file F line N` where Slurm's own text has no location.
impl fmt::Display for ConfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.kind, &self.location) {
            (ConfErrorKind::Parse { .. } | ConfErrorKind::IncludeFailed, _) | (_, None) => {
                f.write_str(&self.slurm_text())
            }
            (kind, Some(l)) => write!(f, "{kind} in file {} line {}", l.file, l.line),
        }
    }
}

impl std::error::Error for ConfError {}

/// Every error found in a file: like Slurm, parsing goes on after an error so all of them are reported at once.
/// The warnings gathered up to then come along, since Slurm logs them next to the errors.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}", self.errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct ConfErrors {
    pub errors: Vec<ConfError>,
    pub warnings: Vec<ConfError>,
}

impl ConfErrors {
    pub fn iter(&self) -> impl Iterator<Item = &ConfError> {
        self.errors.iter()
    }

    /// True if any error has a kind matching `pred`.
    pub fn contains(&self, pred: impl Fn(&ConfErrorKind) -> bool) -> bool {
        self.errors.iter().any(|e| pred(&e.kind))
    }
}

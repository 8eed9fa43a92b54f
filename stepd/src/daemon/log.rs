//! The supervisor's own log. After detaching, stderr is `<job_dir>/stepd.log`; before that it is the
//! launcher's terminal or pipe. Logging never fails the caller.

use std::fmt;
use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::messages::format_local_time;

/// Seconds since the Unix epoch (0 if the clock is before 1970).
pub(crate) fn now_epoch() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Writes one timestamped line to stderr.
pub(crate) fn log_line(args: fmt::Arguments<'_>) {
    let ts = format_local_time(now_epoch()).unwrap_or_default();
    let _ = writeln!(
        std::io::stderr(),
        "[{ts}] spurstepd[{}]: {args}",
        std::process::id()
    );
}

/// `slog!("format", args..)`: log a line to the supervisor's log.
macro_rules! slog {
    ($($arg:tt)*) => {
        $crate::daemon::log::log_line(format_args!($($arg)*))
    };
}
pub(crate) use slog;

//! Checks of options whose values follow one of the shared grammars in [`crate::grammar::values`] (time limits, sizes,
//! node counts, distributions, mail types, signals), made as Slurm makes them: while reading each option, with
//! `exit(-1)` on failure.

use crate::grammar::options::error::{ErrCtx, ErrorKind, ExitClass, OptError};
use crate::grammar::options::table::{Command, OptId};
use crate::grammar::values::begin::{parse_begin, parse_time, BeginError, LocalNow};
use crate::grammar::values::distribution::{parse_distribution, DistributionError};
use crate::grammar::values::mail::parse_mail_type;
use crate::grammar::values::nodes::parse_node_count;
use crate::grammar::values::signal::{parse_signal_spec, sig_name2num};
use crate::grammar::values::size::{parse_size, SizeOption};
use crate::grammar::values::time::{parse_job_time_limit, parse_time_secs};

/// The clock stage 1 checks `--begin`/`--deadline` against: whether a time is well-formed does not depend on
/// the date, and resolving it against the real clock is the resolve step's job.
const REFERENCE_NOW: LocalNow = LocalNow {
    epoch_secs: 1_700_000_000,
    utc_offset_secs: 0,
};

/// Checks `value` for `id` if its grammar lives in [`crate::grammar::values`]; `None` if `id` is not such an option.
pub fn check_grammar(ctx: &ErrCtx, id: OptId, value: Option<&str>) -> Option<Result<(), OptError>> {
    use OptId::*;
    let v = value.unwrap_or("");
    let fail = |msgs: &[&str]| Err(ctx.error(ErrorKind::InvalidValue(id), ExitClass::Minus1, msgs));
    let spec = |name: &str| fail(&[format!("Invalid --{name} specification").as_str()]);
    let result = match id {
        Time => parse_job_time_limit(v).map(drop).or_else(|_| spec("time")),
        TimeMin => parse_job_time_limit(v)
            .map(drop)
            .or_else(|_| spec("time-min")),
        DelayBoot => parse_time_secs(v).map(drop).or_else(|_| spec("delay-boot")),
        Nodes => parse_node_count(v)
            .map(drop)
            .or_else(|e| fail(&[e.to_string().as_str()])),
        Mem | MemPerCpu | MemPerGpu | Tmp => {
            let which = match id {
                Mem => SizeOption::Mem,
                MemPerCpu => SizeOption::MemPerCpu,
                MemPerGpu => SizeOption::MemPerGpu,
                _ => SizeOption::Tmp,
            };
            parse_size(which, v)
                .map(drop)
                .or_else(|e| fail(&[e.to_string().as_str()]))
        }
        Distribution => match parse_distribution(v) {
            Ok(_) => Ok(()),
            Err(DistributionError::InvalidPlaneSize) => fail(&[
                "Invalid plane size or size not specified",
                "Invalid --distribution specification",
            ]),
            Err(DistributionError::Invalid) => spec("distribution"),
        },
        MailType => parse_mail_type(v).map(drop).or_else(|_| spec("mail-type")),
        Signal => parse_signal_spec(v, ctx.cmd == Command::Sbatch)
            .map(drop)
            .or_else(|_| spec("signal")),
        KillCommand if value.is_some() => match sig_name2num(v) {
            Some(n) if n > 0 => Ok(()),
            _ => spec("kill-command"),
        },
        Begin => match parse_begin(v, REFERENCE_NOW) {
            Ok(_) => Ok(()),
            Err(BeginError::Invalid(pos)) => {
                Err(time_error(ctx, id, "begin", pos.map(|e| e.to_string())))
            }
        },
        Deadline => match parse_time(v, REFERENCE_NOW, false) {
            Ok(0) => Err(time_error(ctx, id, "deadline", None)),
            Ok(_) => Ok(()),
            Err(e) => Err(time_error(ctx, id, "deadline", Some(e.to_string()))),
        },
        _ => return None,
    };
    Some(result)
}

/// Slurm's time parser prints its own unprefixed line before the option's error.
fn time_error(ctx: &ErrCtx, id: OptId, name: &str, parser_line: Option<String>) -> OptError {
    let mut lines: Vec<String> = parser_line.into_iter().collect();
    lines.push(format!(
        "{}: error: Invalid --{name} specification",
        ctx.cmd
    ));
    ctx.raw(ErrorKind::InvalidValue(id), lines, ExitClass::Minus1)
}

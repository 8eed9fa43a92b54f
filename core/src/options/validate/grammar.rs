//! Checks of options whose values follow one of the shared grammars in [`crate::values`] (time limits, sizes,
//! node counts, distributions, mail types, signals), made as Slurm makes them: while reading each option, with
//! `exit(-1)` on failure.

use crate::options::error::{ErrCtx, ErrorKind, ExitClass, OptError};
use crate::options::table::{Command, OptId};
use crate::values::distribution::{parse_distribution, DistributionError};
use crate::values::mail::parse_mail_type;
use crate::values::nodes::parse_node_count;
use crate::values::signal::{parse_signal_spec, sig_name2num};
use crate::values::size::{parse_size, SizeOption};
use crate::values::time::{parse_job_time_limit, parse_time_secs};

/// Checks `value` for `id` if its grammar lives in [`crate::values`]; `None` if `id` is not such an option.
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
        _ => return None,
    };
    Some(result)
}

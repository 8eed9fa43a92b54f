//! Value checks Slurm applies to individual options as it reads them, with its messages and exit statuses.
//!
//! These are the checks that need no other grammar: numbers, keywords, `--cpu-freq`, `--mem-bind`, `-B` and the
//! like. Time limits, memory sizes, node counts, arrays, dependencies, GRES, signals and mail types are checked by
//! the resolve step with the value grammars. Slurm reads numbers with C's `strtol`, so the helpers here copy its
//! leniencies (leading blanks, a sign, wrap-around to `int`) on purpose.

mod cpu_freq;
mod grammar;
mod lists;

pub use cpu_freq::{parse_cpu_freq, CpuFreq, CpuFreqValue, Governor};
pub use grammar::check_grammar;
pub use lists::{parse_mem_bind, MemBind};

use super::error::{ErrCtx, ErrorKind, ExitClass, OptError};
use super::set::{OptionSet, Source};
use super::table::{def, OptId};

/// Checks the value given for `id` (None: the option came without one). Options without a check always pass.
pub fn check(ctx: &ErrCtx, id: OptId, value: Option<&str>) -> Result<(), OptError> {
    use OptId::*;
    if let Some(result) = check_grammar(ctx, id, value) {
        return result;
    }
    let v = value.unwrap_or("");
    let bad = |msgs: &[&str], class| Err(ctx.error(ErrorKind::InvalidValue(id), class, msgs));
    let spec = |name: &str| -> Result<(), OptError> {
        let msg = format!("Invalid --{name} specification");
        bad(&[msg.as_str()], ExitClass::Minus1)
    };
    match id {
        CpusPerTask | Ntasks | NtasksPerNode | Mincpus | ThreadSpec | CpusPerGpu
        | SocketsPerNode | CoresPerSocket | ThreadsPerCore | NtasksPerCore | NtasksPerSocket
        | NtasksPerGpu | NtasksPerTres | Threads | JobId | MsgTimeout => {
            numeric(ctx, id, &format!("--{}", def(id).long), value, true).map(drop)
        }
        CoreSpec | Relative | WaitAfterExit | KillOnBadExit if value.is_some() => {
            numeric(ctx, id, &format!("--{}", def(id).long), value, false).map(drop)
        }
        ResvPorts if value.is_some() => numeric(ctx, id, "--resv-port", value, false).map(drop),
        Immediate if value.is_some() => numeric(ctx, id, "immediate", value, false).map(drop),
        Switches => {
            let count = v.split('@').next().unwrap_or("");
            numeric(ctx, id, "--switches", Some(count), true).map(drop)
        }
        WaitAllNodes => match numeric(ctx, id, "--wait-all-nodes", value, false)? {
            0 | 1 => Ok(()),
            n if n < 0 => Ok(()),
            _ => spec("wait-all-nodes"),
        },
        ExtraNodeInfo => check_extra_node_info(ctx, v),
        Nice if value.is_some() => {
            if strtol(v).unsigned_abs() > NICE_LIMIT {
                return bad(
                    &["Invalid --nice value, out of range (+/- 2147483645)"],
                    ExitClass::Minus1,
                );
            }
            Ok(())
        }
        Priority if !v.eq_ignore_ascii_case("top") => {
            let p = strtol(v);
            if p < 0 {
                bad(&["Priority must be >= 0"], ExitClass::Minus1)
            } else if p >= i64::from(NO_VAL) {
                bad(&["Priority must be < 4294967294"], ExitClass::Minus1)
            } else {
                Ok(())
            }
        }
        CpuFreq => parse_cpu_freq(v).map(drop).map_err(|m| {
            let lines = [m.as_str(), "Invalid --cpu-freq argument"];
            ctx.error(ErrorKind::InvalidValue(id), ExitClass::Minus1, &lines)
        }),
        Exclusive if !is_one_of(v, &["", "exclusive", "user", "mcs"]) => spec("exclusive"),
        GetUserEnv if !valid_get_user_env(v) => spec("get-user-env"),
        GresFlags if !is_one_of(v, &["disable-binding", "enforce-binding"]) => spec("gres-flags"),
        KillOnInvalidDep if !is_one_of(v, &["yes", "no"]) => spec("kill-on-invalid-dep"),
        OpenMode if !matches!(v.bytes().next(), Some(b'a' | b'A' | b't' | b'T')) => {
            spec("open-mode")
        }
        NoKill if !is_one_of(v, &["", "set", "off", "no"]) => spec("no-kill"),
        SendLibs if !is_one_of(v, &["", "yes", "no", "y", "n"]) => spec("send-libs"),
        MemBind => parse_mem_bind(v)
            .map(drop)
            .map_err(|m| ctx.error(ErrorKind::InvalidValue(id), ExitClass::Minus1, &[&m])),
        Profile if v.split(',').any(|t| !is_one_of(t, PROFILES)) => {
            let msg = format!("invalid --profile={v} option");
            bad(&[msg.as_str()], ExitClass::Minus1)
        }
        AcctgFreq if !valid_acctg_freq(v) => {
            let msg = format!("Invalid --acctg-freq specification: {v}");
            bad(&[msg.as_str()], ExitClass::Minus1)
        }
        HetGroup if !valid_ranges(v) => {
            let range = format!("_parse_single_range: Invalid range: `{v}'");
            let msg = format!("Invalid --het-group value: {v}");
            bad(&[range.as_str(), msg.as_str()], ExitClass::One)
        }
        _ => Ok(()),
    }
}

/// Checks Slurm makes only once every input is merged, after the script was read: a bad `--hint` is reported
/// after a bad script, and only for the value that won.
pub fn check_late(ctx: &ErrCtx, set: &OptionSet) -> Result<(), OptError> {
    let wrapped = |id: OptId| set.value(id).map(|v| strtol(v) as i32);
    if let Some(n) = wrapped(OptId::Ntasks).filter(|n| *n < 0) {
        let msg = format!("invalid number of tasks (-n {n})");
        return Err(ctx.error(
            ErrorKind::InvalidValue(OptId::Ntasks),
            ExitClass::ErrorExit,
            &[msg.as_str()],
        ));
    }
    if let Some(n) = wrapped(OptId::CpusPerTask).filter(|n| *n <= 0) {
        let msg = format!("invalid number of cpus per task (-c {n})");
        return Err(ctx.error(
            ErrorKind::InvalidValue(OptId::CpusPerTask),
            ExitClass::ErrorExit,
            &[msg.as_str()],
        ));
    }
    if MEMORY_OPTIONS
        .iter()
        .filter(|id| given_explicitly(set, **id))
        .count()
        > 1
    {
        return Err(ctx.fatal(
            ErrorKind::InvalidValue(OptId::Mem),
            "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.",
        ));
    }
    // Slurm checks the GPU options together; each refusal is followed by the generic GRES error.
    let gres_refusal = |id: OptId, reason: &str| {
        ctx.error(
            ErrorKind::InvalidValue(id),
            ExitClass::One,
            &[reason, "Invalid generic resource (gres) specification"],
        )
    };
    if set.is_set(OptId::CpusPerGpu) && set.is_set(OptId::CpusPerTask) {
        return Err(gres_refusal(
            OptId::CpusPerGpu,
            "--cpus-per-gpu is mutually exclusive with --cpus-per-task",
        ));
    }
    if set.is_set(OptId::GpusPerSocket) && !set.is_set(OptId::SocketsPerNode) {
        return Err(gres_refusal(
            OptId::GpusPerSocket,
            "--gpus-per-socket option requires --sockets-per-node specification",
        ));
    }
    if let Some(v) = set.value(OptId::Hint) {
        if let Some(t) = v.split(',').find(|t| !is_one_of(t, HINTS)) {
            let msg = format!("unrecognized --hint argument \"{t}\", see --hint=help");
            return Err(ctx.error(
                ErrorKind::InvalidValue(OptId::Hint),
                ExitClass::ErrorExit,
                &[msg.as_str()],
            ));
        }
    }
    Ok(())
}

/// The ways to ask for memory, of which a job takes one.
pub(crate) const MEMORY_OPTIONS: [OptId; 3] = [OptId::Mem, OptId::MemPerCpu, OptId::MemPerGpu];

/// Whether the option came from the command line or the script rather than an input environment variable:
/// Slurm refuses two explicit memory options, but lets an explicit one override those from the environment.
pub(crate) fn given_explicitly(set: &OptionSet, id: OptId) -> bool {
    set.get(id)
        .is_some_and(|e| !matches!(e.source, Source::Env { .. }))
}

/// Slurm's `NO_VAL`: the first priority it refuses.
const NO_VAL: u32 = 0xffff_fffe;
/// The largest nice adjustment Slurm takes either way (its `NICE_OFFSET - 3`).
const NICE_LIMIT: u64 = 2_147_483_645;
const HINTS: &[&str] = &[
    "compute_bound",
    "memory_bound",
    "multithread",
    "nomultithread",
    "help",
];
const PROFILES: &[&str] = &["all", "none", "energy", "lustre", "network", "task"];
const ACCTG_TYPES: &[&str] = &["task", "energy", "network", "filesystem"];

fn is_one_of(v: &str, words: &[&str]) -> bool {
    words.iter().any(|w| v.eq_ignore_ascii_case(w))
}

/// C `strtol(s, NULL, 10)`: blanks, a sign and leading digits; no digits gives 0; overflow saturates.
pub(crate) fn strtol(s: &str) -> i64 {
    strtol_end(s).0
}

/// C `strtol` returning the value and how many bytes it consumed (0 when there were no digits).
pub(crate) fn strtol_end(s: &str) -> (i64, usize) {
    let r = strtol_full(s);
    (r.0, r.1)
}

/// C `strtol`: the value (saturated like C's), the bytes consumed (0 without digits), and whether it overflowed
/// (C's `ERANGE`).
pub(crate) fn strtol_full(s: &str) -> (i64, usize, bool) {
    let b = s.as_bytes();
    let mut i = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
    let neg = match b.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let start = i;
    let mut n: i64 = 0;
    let mut overflow = false;
    while let Some(d) = b.get(i).filter(|c| c.is_ascii_digit()) {
        let digit = i64::from(d - b'0');
        let next = n.checked_mul(10).and_then(|m| {
            if neg {
                m.checked_sub(digit)
            } else {
                m.checked_add(digit)
            }
        });
        match next {
            Some(v) => n = v,
            None => {
                overflow = true;
                n = if neg { i64::MIN } else { i64::MAX };
            }
        }
        i += 1;
    }
    if i == start {
        (0, 0, false)
    } else {
        (n, i, overflow)
    }
}

/// Slurm's `parse_int()`: the whole value must be a base-10 number, not negative, and not zero when `positive`;
/// the result is truncated to a C `int` like Slurm's cast.
pub fn numeric(
    ctx: &ErrCtx,
    id: OptId,
    name: &str,
    value: Option<&str>,
    positive: bool,
) -> Result<i32, OptError> {
    let v = value.unwrap_or("");
    let (n, used, overflow) = strtol_full(v);
    let whole = if used == 0 {
        v.is_empty()
    } else {
        used == v.len()
    };
    let fail =
        |msg: String| Err(ctx.error(ErrorKind::InvalidValue(id), ExitClass::One, &[msg.as_str()]));
    if value.is_some() && whole && overflow {
        return fail(format!("Numeric argument ({n}) to big for {name}."));
    }
    if value.is_none() || !whole || n < 0 || (positive && n == 0) {
        return fail(format!(
            "Invalid numeric value \"{}\" for {name}.",
            value.unwrap_or("(null)")
        ));
    }
    // Slurm stores the long in an int: keep the low 32 bits, as the C cast does.
    Ok(n as i32)
}

/// `-B S[:C[:T]]`: each part is `*`, a number or a `min-max` range; parts past the third are ignored.
fn check_extra_node_info(ctx: &ErrCtx, v: &str) -> Result<(), OptError> {
    const WHICH: [&str; 3] = ["first", "second", "third"];
    for (part, which) in v.split(':').zip(WHICH) {
        if part == "*" {
            continue;
        }
        let ok = match part.split_once('-') {
            Some((a, b)) => int_ok(a) && int_ok(b),
            None => int_ok(part),
        };
        if !ok {
            let msg = format!("Invalid numeric value \"{part}\" for {which} arg of -B.");
            return Err(ctx.error(
                ErrorKind::InvalidValue(OptId::ExtraNodeInfo),
                ExitClass::One,
                &[msg.as_str()],
            ));
        }
    }
    Ok(())
}

/// Whether `parse_int` would accept `s` as a non-negative count (the empty string counts as 0).
fn int_ok(s: &str) -> bool {
    let (n, used) = strtol_end(s);
    (used == s.len()) && n >= 0
}

/// `--get-user-env[=timeout][mode]`: optional seconds, then optional `S` (short) or `L` (login) mode.
fn valid_get_user_env(v: &str) -> bool {
    let digits = v.bytes().take_while(u8::is_ascii_digit).count();
    matches!(&v.as_bytes()[digits..], [] | [b'S' | b's' | b'L' | b'l'])
}

/// `--acctg-freq`: empty, a bare interval, or `type=interval` items.
fn valid_acctg_freq(v: &str) -> bool {
    let is_num = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    v.is_empty()
        || v.split(',').all(|item| match item.split_once('=') {
            Some((kind, secs)) => is_one_of(kind, ACCTG_TYPES) && is_num(secs),
            None => is_num(item),
        })
}

/// A comma list of `n` or `n-m` items (as `--het-group` takes).
fn valid_ranges(v: &str) -> bool {
    let is_num = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    !v.is_empty()
        && v.split(',').all(|item| match item.split_once('-') {
            Some((a, b)) => is_num(a) && is_num(b),
            None => is_num(item),
        })
}

/// Reads `--umask` style octal masks (`#PBS -W umask=`): octal digits only, at most 0777.
pub fn parse_umask(v: &str) -> Option<u32> {
    if v.is_empty() || !v.bytes().all(|c| (b'0'..=b'7').contains(&c)) {
        return None;
    }
    u32::from_str_radix(v, 8).ok().filter(|m| *m <= 0o777)
}

#[cfg(test)]
mod tests;

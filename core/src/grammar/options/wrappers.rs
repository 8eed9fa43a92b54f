//! `#BSUB` (LSF) and `#PBS` (Torque/PBS) lines, which sbatch translates into its own options unless told to
//! `--ignore-pbs`.
//!
//! Behaviour copied from sbatch 22.05.8: only one kind is translated, `#BSUB` if the script has any such line,
//! else `#PBS`; unlike `#SBATCH`, these lines are looked for in the whole script; their words (split like
//! `#SBATCH` words) form one argument vector read with the wrapper's short options; the results rank above
//! `#SBATCH` lines and below the environment.

use super::argv::RawOpt;
use super::directives::{is_c_space, DirectiveWord};
use super::error::{ErrCtx, ErrorKind, ExitClass, OptError};
use super::table::OptId;

/// A wrapper's short options: the letter and whether it takes a value.
type OptString = &'static [(char, bool)];

const PBS_OPTS: OptString = &[
    ('a', true),
    ('A', true),
    ('c', true),
    ('C', true),
    ('e', true),
    ('h', false),
    ('I', false),
    ('j', true),
    ('J', true),
    ('k', true),
    ('l', true),
    ('m', true),
    ('M', true),
    ('N', true),
    ('o', true),
    ('p', true),
    ('q', true),
    ('r', true),
    ('S', true),
    ('t', true),
    ('u', true),
    ('v', true),
    ('V', false),
    ('W', true),
    ('z', false),
];

const BSUB_OPTS: OptString = &[
    ('c', true),
    ('e', true),
    ('J', true),
    ('m', true),
    ('M', true),
    ('n', true),
    ('o', true),
    ('q', true),
    ('W', true),
    ('x', false),
];

/// The options the script's `#BSUB` or `#PBS` lines translate to, each with its line number.
pub fn translate(ctx: &ErrCtx, file: &str, body: &[u8]) -> Result<Vec<(RawOpt, usize)>, OptError> {
    let bsub = collect(ctx, file, body, b"#BSUB")?;
    if !bsub.is_empty() {
        let letters = getopt(ctx, BSUB_OPTS, &bsub)?;
        return Ok(letters
            .into_iter()
            .filter_map(|(c, v, line)| bsub_option(c, v).map(|o| (o, line)))
            .collect());
    }
    let pbs = collect(ctx, file, body, b"#PBS")?;
    let letters = getopt(ctx, PBS_OPTS, &pbs)?;
    let mut out = Vec::new();
    for (c, v, line) in letters {
        for opt in pbs_options(ctx, c, v)? {
            out.push((opt, line));
        }
    }
    Ok(out)
}

/// The words of every line starting with `magic`, anywhere in the script.
fn collect(
    ctx: &ErrCtx,
    file: &str,
    body: &[u8],
    magic: &[u8],
) -> Result<Vec<DirectiveWord>, OptError> {
    let mut words = Vec::new();
    for (idx, line) in body.split(|b| *b == b'\n').enumerate() {
        if let Some(rest) = line.strip_prefix(magic) {
            let n = rest.iter().take_while(|b| is_c_space(**b)).count();
            for text in super::directives::line_words(ctx, file, idx + 1, &rest[n..], false)? {
                words.push(DirectiveWord {
                    text,
                    line: idx + 1,
                });
            }
        }
    }
    Ok(words)
}

/// getopt over wrapper words: (letter, value, line) in order.
fn getopt(
    ctx: &ErrCtx,
    opts: OptString,
    words: &[DirectiveWord],
) -> Result<Vec<(char, Option<String>, usize)>, OptError> {
    let unrecognized = |first: String| {
        let lines = vec![
            first,
            format!("{}: error: Unrecognized command line parameter ?", ctx.cmd),
        ];
        ctx.raw(
            ErrorKind::InvalidWrapperDirective,
            lines,
            ExitClass::ErrorExit,
        )
    };
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(w) = words.get(i) {
        let text = w.text.as_str();
        if text == "--" {
            i += 1;
            break;
        }
        if text.starts_with("--") {
            return Err(unrecognized(format!(
                "{}: unrecognized option '{text}'",
                ctx.cmd
            )));
        }
        if text.len() < 2 || !text.starts_with('-') {
            break;
        }
        let mut rest = &text[1..];
        i += 1;
        while let Some(c) = rest.chars().next() {
            rest = &rest[c.len_utf8()..];
            let Some(&(_, takes_value)) = opts.iter().find(|(l, _)| *l == c) else {
                return Err(unrecognized(format!(
                    "{}: invalid option -- '{c}'",
                    ctx.cmd
                )));
            };
            if !takes_value {
                out.push((c, None, w.line));
                continue;
            }
            let value = if !rest.is_empty() {
                rest.to_string()
            } else if let Some(next) = words.get(i) {
                i += 1;
                next.text.clone()
            } else {
                return Err(unrecognized(format!(
                    "{}: option requires an argument -- '{c}'",
                    ctx.cmd
                )));
            };
            out.push((c, Some(value), w.line));
            break;
        }
    }
    if let Some(extra) = words.get(i) {
        let msg = format!("Invalid argument: {}", extra.text);
        return Err(ctx.error(
            ErrorKind::InvalidWrapperDirective,
            ExitClass::ErrorExit,
            &[msg.as_str()],
        ));
    }
    Ok(out)
}

fn raw(id: OptId, value: Option<String>) -> RawOpt {
    RawOpt {
        id,
        spelled: String::new(),
        value,
        index: 0,
    }
}

fn bsub_option(c: char, v: Option<String>) -> Option<RawOpt> {
    let v = v.unwrap_or_default();
    let opt = match c {
        'c' => raw(OptId::Chdir, Some(v)),
        'e' => raw(OptId::Error, Some(v)),
        'J' => raw(OptId::JobName, Some(v)),
        // LSF separates hosts with blanks.
        'm' => raw(
            OptId::Nodelist,
            Some(v.split_whitespace().collect::<Vec<_>>().join(",")),
        ),
        'M' => raw(OptId::MemPerCpu, Some(lsf_memory(&v))),
        // `-n min,max`: Slurm keeps the maximum.
        'n' => raw(
            OptId::Ntasks,
            Some(v.rsplit(',').next().unwrap_or("").to_string()),
        ),
        'o' => raw(OptId::Output, Some(v)),
        'q' => raw(OptId::Partition, Some(v)),
        'W' => raw(OptId::Time, Some(v)),
        'x' => raw(OptId::Exclusive, None),
        _ => return None,
    };
    Some(opt)
}

/// LSF memory limits are in KB unless a unit says otherwise.
fn lsf_memory(v: &str) -> String {
    let v = v.strip_suffix(['b', 'B']).unwrap_or(v);
    if !v.is_empty() && v.bytes().all(|c| c.is_ascii_digit()) {
        format!("{v}K")
    } else {
        v.to_string()
    }
}

fn pbs_options(ctx: &ErrCtx, c: char, v: Option<String>) -> Result<Vec<RawOpt>, OptError> {
    let v = v.unwrap_or_default();
    let one = |id: OptId, value: String| Ok(vec![raw(id, Some(value))]);
    match c {
        'a' => one(OptId::Begin, v),
        'A' => one(OptId::Account, v),
        'e' => one(OptId::Error, v),
        'h' => Ok(vec![raw(OptId::Hold, None)]),
        'J' | 't' => one(OptId::Array, v),
        'l' => pbs_resources(ctx, &v),
        'm' => pbs_mail(ctx, &v).and_then(|m| one(OptId::MailType, m)),
        'M' => one(OptId::MailUser, v),
        'N' => one(OptId::JobName, v),
        'o' => one(OptId::Output, v),
        'p' => one(OptId::Nice, v),
        'q' => one(OptId::Partition, v),
        'v' => one(OptId::Export, v),
        'V' => one(OptId::Export, "ALL".into()),
        'W' => Ok(pbs_attribute(&v).into_iter().collect()),
        _ => Ok(Vec::new()),
    }
}

/// `-m abe`: a = FAIL, b = BEGIN, e = END, n = NONE.
fn pbs_mail(ctx: &ErrCtx, v: &str) -> Result<String, OptError> {
    let mut names = Vec::new();
    for (letter, name) in [('b', "BEGIN"), ('e', "END"), ('a', "FAIL"), ('n', "NONE")] {
        if v.chars().any(|c| c.eq_ignore_ascii_case(&letter)) {
            names.push(name);
        }
    }
    let valid = v.chars().all(|c| "abenABEN".contains(c));
    if !valid || names.is_empty() {
        let msg = "Invalid --mail-type specification";
        return Err(ctx.error(
            ErrorKind::InvalidValue(OptId::MailType),
            ExitClass::Minus1,
            &[msg],
        ));
    }
    Ok(names.join(","))
}

/// `-W attr=value`: dependencies and umask are used, other attributes ignored.
fn pbs_attribute(v: &str) -> Option<RawOpt> {
    let lower = v.to_ascii_lowercase();
    if lower.starts_with("depend=") {
        Some(raw(OptId::Dependency, Some(v[7..].to_string())))
    } else if lower.starts_with("umask=") {
        Some(raw(OptId::Umask, Some(v[6..].to_string())))
    } else {
        None
    }
}

/// `-l name=value,...` resource requests. sbatch looks for known `name=` at every position of the list (so
/// `xwalltime=5` counts as a walltime), reads the value up to the name's delimiter, and resumes after it; `ncpus`
/// and `select` end at `:`, which is how `select=2:ncpus=4:mem=1gb` sets three options.
fn pbs_resources(ctx: &ErrCtx, list: &str) -> Result<Vec<RawOpt>, OptError> {
    // Longer names that contain a shorter one come first, so `pmem=` is skipped rather than read as `mem=`.
    const KEYS: &[(&str, char, Option<OptId>)] = &[
        ("accelerator=", ',', None),
        ("cput=", ',', Some(OptId::Time)),
        ("file=", ',', Some(OptId::Tmp)),
        ("mppmem=", ',', None),
        ("pmem=", ',', None),
        ("pvmem=", ',', None),
        ("vmem=", ',', None),
        ("mem=", ',', Some(OptId::Mem)),
        ("naccelerators=", ',', None),
        ("ncpus=", ':', Some(OptId::Mincpus)),
        ("nice=", ',', Some(OptId::Nice)),
        ("nodes=", ',', None),
        ("select=", ':', Some(OptId::Nodes)),
        ("walltime=", ',', Some(OptId::Time)),
    ];
    let mut out = Vec::new();
    let mut i = 0;
    while i < list.len() {
        let rest = &list[i..];
        let Some(&(key, delim, id)) = KEYS.iter().find(|(k, _, _)| rest.starts_with(k)) else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let value_all = &rest[key.len()..];
        let value = value_all.split(delim).next().unwrap_or("");
        i += key.len() + value.len();
        match (key, id) {
            ("mem=" | "file=", Some(id)) => out.push(raw(id, Some(strip_byte_suffix(value)))),
            (_, Some(id)) => out.push(raw(id, Some(value.to_string()))),
            ("nodes=", None) => out.extend(pbs_nodes(value)),
            ("naccelerators=", None) => {
                let n = super::validate::numeric(
                    ctx,
                    OptId::Gres,
                    "naccelerators",
                    Some(value),
                    false,
                )?;
                out.push(raw(OptId::Gres, Some(format!("gpu:{n}"))));
            }
            ("accelerator=", None) if value.eq_ignore_ascii_case("true") => {
                out.push(raw(OptId::Gres, Some("gpu:1".into())));
            }
            _ => {}
        }
    }
    Ok(out)
}

/// PBS sizes end in `b` (`1gb`, `500mb`); without it they read as Slurm sizes.
fn strip_byte_suffix(v: &str) -> String {
    v.strip_suffix(['b', 'B']).unwrap_or(v).to_string()
}

/// `nodes=2:ppn=4:gpus=1+node3`: counts add up, names become a node list, and Slurm multiplies the node total
/// by the sum of the `ppn` values for the task count.
fn pbs_nodes(spec: &str) -> Vec<RawOpt> {
    let mut nodes = 0i64;
    let mut ppn = 0i64;
    let mut hosts = Vec::new();
    let mut gpus = None;
    for segment in spec.split('+') {
        let mut parts = segment.split(':');
        let first = parts.next().unwrap_or("");
        if first.bytes().next().is_some_and(|b| b.is_ascii_digit()) {
            nodes += super::validate::strtol(first);
        } else if !first.is_empty() {
            hosts.push(first.to_string());
        }
        for p in parts {
            if let Some(n) = p.strip_prefix("ppn=") {
                ppn += super::validate::strtol(n);
            } else if let Some(g) = p.strip_prefix("gpus=") {
                gpus = Some(g.to_string());
            } else if !p.is_empty() {
                hosts.push(p.to_string());
            }
        }
    }
    let mut out = Vec::new();
    if nodes > 0 {
        out.push(raw(OptId::Nodes, Some(nodes.to_string())));
        if ppn > 0 {
            out.push(raw(OptId::Ntasks, Some((nodes * ppn).to_string())));
        }
    }
    if !hosts.is_empty() {
        out.push(raw(OptId::Nodelist, Some(hosts.join(","))));
    }
    if let Some(g) = gpus {
        out.push(raw(OptId::GpusPerNode, Some(g)));
    }
    out
}

#[cfg(test)]
mod tests;

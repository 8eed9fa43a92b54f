//! A small getopt_long for the query commands (squeue, sinfo, scontrol), which have their own option sets outside
//! the sbatch/srun/salloc table: long options with `=` or a separate value, unambiguous prefixes, short clusters,
//! and getopt's error texts.

/// One option: long name, short letter, whether it takes a value.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub long: &'static str,
    pub short: Option<char>,
    pub takes_value: bool,
    /// getopt's `::`: a value only when attached (`-j5`, `--jobs=5`), never the next argument.
    pub optional_value: bool,
}

pub const fn opt(long: &'static str, short: Option<char>, takes_value: bool) -> Spec {
    Spec {
        long,
        short,
        takes_value,
        optional_value: false,
    }
}

/// An option whose value is optional (getopt's `j::`).
pub const fn opt_optional(long: &'static str, short: Option<char>) -> Spec {
    Spec {
        long,
        short,
        takes_value: false,
        optional_value: true,
    }
}

#[derive(Debug, Default, PartialEq)]
pub struct Parsed {
    /// Options by long name, in command-line order.
    pub options: Vec<(&'static str, Option<String>)>,
    pub positional: Vec<String>,
}

impl Parsed {
    pub fn has(&self, long: &str) -> bool {
        self.options.iter().any(|(n, _)| *n == long)
    }

    /// The last value given for an option (later ones win, as in Slurm).
    pub fn value(&self, long: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(n, _)| *n == long)
            .and_then(|(_, v)| v.as_deref())
    }
}

/// The start every query command shares: parse `args`, print a parse error (exit 1) or, for `-V/--version`,
/// the version line (exit 0). `Err` holds the status the command ends with.
pub fn parse_or_finish(program: &str, specs: &[Spec], args: &[String]) -> Result<Parsed, u8> {
    let parsed = parse(program, specs, args).map_err(|text| {
        eprintln!("{text}");
        1
    })?;
    if parsed.has("version") {
        println!("{}", crate::version_line());
        return Err(0);
    }
    Ok(parsed)
}

/// Parses `args` (program name excluded); the error is the full stderr text, as getopt prints it.
pub fn parse(program: &str, specs: &[Spec], args: &[String]) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut i = 0;
    let try_help = format!("Try \"{program} --help\" for more information");
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            parsed.positional.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let spec = find_long(specs, name).map_err(|candidates| match candidates {
                None => format!("{program}: unrecognized option '--{name}'\n{try_help}"),
                Some(list) => format!(
                    "{program}: option '{arg}' is ambiguous; possibilities:{}\n{try_help}",
                    list.iter().map(|c| format!(" '--{c}'")).collect::<String>()
                ),
            })?;
            let value = if spec.optional_value {
                inline
            } else if spec.takes_value {
                match inline {
                    Some(v) => Some(v),
                    None if i < args.len() => {
                        i += 1;
                        Some(args[i - 1].clone())
                    }
                    None => {
                        return Err(format!(
                            "{program}: option '--{}' requires an argument\n{try_help}",
                            spec.long
                        ))
                    }
                }
            } else if inline.is_some() {
                return Err(format!(
                    "{program}: option '--{}' doesn't allow an argument\n{try_help}",
                    spec.long
                ));
            } else {
                None
            };
            parsed.options.push((spec.long, value));
        } else if arg.len() > 1 && arg.starts_with('-') {
            let letters: Vec<char> = arg.chars().skip(1).collect();
            let mut j = 0;
            while j < letters.len() {
                let letter = letters[j];
                j += 1;
                let spec = specs
                    .iter()
                    .find(|s| s.short == Some(letter))
                    .ok_or_else(|| {
                        format!("{program}: invalid option -- '{letter}'\n{try_help}")
                    })?;
                if spec.optional_value {
                    let rest: String = letters[j..].iter().collect();
                    parsed
                        .options
                        .push((spec.long, (!rest.is_empty()).then_some(rest)));
                    break;
                }
                if spec.takes_value {
                    let rest: String = letters[j..].iter().collect();
                    let value = if !rest.is_empty() {
                        rest
                    } else if i < args.len() {
                        i += 1;
                        args[i - 1].clone()
                    } else {
                        return Err(format!(
                            "{program}: option requires an argument -- '{letter}'\n{try_help}"
                        ));
                    };
                    parsed.options.push((spec.long, Some(value)));
                    break;
                }
                parsed.options.push((spec.long, None));
            }
        } else {
            parsed.positional.push(arg.clone());
        }
    }
    Ok(parsed)
}

/// Exact match first, else a unique prefix; `Err(Some(list))` when ambiguous, `Err(None)` when unknown.
fn find_long<'a>(specs: &'a [Spec], name: &str) -> Result<&'a Spec, Option<Vec<&'static str>>> {
    if let Some(spec) = specs.iter().find(|s| s.long == name) {
        return Ok(spec);
    }
    let mut matches: Vec<&Spec> = specs
        .iter()
        .filter(|s| !name.is_empty() && s.long.starts_with(name))
        .collect();
    // One long option may have two short letters (sshare's `-n` and `-h`): a prefix of it is not ambiguous.
    matches.dedup_by_key(|s| s.long);
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(None),
        many => Err(Some(many.iter().map(|s| s.long).collect())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[Spec] = &[
        opt("format", Some('o'), true),
        opt("Format", Some('O'), true),
        opt("noheader", Some('h'), false),
        opt("long", Some('l'), false),
        opt("jobs", Some('j'), true),
    ];

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn long_short_clusters_and_prefixes() {
        let p = parse(
            "squeue",
            SPECS,
            &args(&["-hl", "-o%i", "--jobs=3", "--form", "%j", "x"]),
        )
        .unwrap();
        assert!(p.has("noheader") && p.has("long"));
        assert_eq!(p.value("format"), Some("%j"));
        assert_eq!(p.value("jobs"), Some("3"));
        assert_eq!(p.positional, vec!["x".to_string()]);
    }

    #[test]
    fn optional_values_only_attached() {
        const OPTIONAL: &[Spec] = &[
            opt_optional("jobs", Some('j')),
            opt("long", Some('l'), false),
        ];
        let p = parse(
            "sprio",
            OPTIONAL,
            &args(&["-j", "5", "-lj7", "--jobs=8", "--jobs"]),
        )
        .unwrap();
        let values: Vec<Option<&str>> = p.options.iter().map(|(_, v)| v.as_deref()).collect();
        assert_eq!(values, vec![None, None, Some("7"), Some("8"), None]);
        assert_eq!(p.positional, vec!["5".to_string()]);
    }

    #[test]
    fn getopt_errors() {
        let unknown = parse("squeue", SPECS, &args(&["--frob"])).unwrap_err();
        assert_eq!(
            unknown,
            "squeue: unrecognized option '--frob'\nTry \"squeue --help\" for more information"
        );
        let missing = parse("squeue", SPECS, &args(&["-o"])).unwrap_err();
        assert!(missing.starts_with("squeue: option requires an argument -- 'o'"));
        let invalid = parse("squeue", SPECS, &args(&["-Z"])).unwrap_err();
        assert!(invalid.starts_with("squeue: invalid option -- 'Z'"));
    }
}

//! Which of the submitter's soft resource limits a batch job inherits: `--propagate[=LIST]`, else slurm.conf's
//! `PropagateResourceLimits` (default `ALL`) less `PropagateResourceLimitsExcept`. sbatch reads the values, the
//! job's supervisor applies them before the script starts (capped at the node's hard limits, as slurmstepd does).

/// The limits Slurm propagates, by its names.
pub const NAMES: [&str; 10] = [
    "AS", "CORE", "CPU", "DATA", "FSIZE", "MEMLOCK", "NOFILE", "NPROC", "RSS", "STACK",
];

/// `ALL`, `NONE` or a comma-separated list of [`NAMES`] (case-insensitive, an `RLIMIT_` prefix allowed); `Err`
/// names the first word that is none of them.
pub fn parse_list(value: &str) -> Result<Vec<&'static str>, String> {
    let mut chosen: Vec<&'static str> = Vec::new();
    for word in value.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        let upper = word.to_ascii_uppercase();
        let name = upper.strip_prefix("RLIMIT_").unwrap_or(&upper);
        match name {
            "ALL" => chosen.extend(NAMES),
            "NONE" => {}
            _ => match NAMES.iter().find(|n| **n == name) {
                Some(n) => chosen.push(n),
                None => return Err(word.to_string()),
            },
        }
    }
    let mut unique: Vec<&'static str> = Vec::new();
    for name in chosen {
        if !unique.contains(&name) {
            unique.push(name);
        }
    }
    Ok(unique)
}

/// The limits to propagate: `option` is `--propagate`'s value when given (empty for the bare option, which means
/// all); otherwise slurm.conf decides.
pub fn propagated(
    option: Option<&str>,
    conf: Option<&str>,
    conf_except: Option<&str>,
) -> Result<Vec<&'static str>, String> {
    if let Some(value) = option {
        return if value.trim().is_empty() {
            Ok(NAMES.to_vec())
        } else {
            parse_list(value)
        };
    }
    let mut chosen = parse_list(conf.unwrap_or("ALL"))?;
    if let Some(except) = conf_except {
        let dropped = parse_list(except)?;
        chosen.retain(|n| !dropped.contains(n));
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_defaults() {
        assert_eq!(propagated(None, None, None).unwrap(), NAMES.to_vec());
        assert_eq!(
            propagated(Some(""), Some("NONE"), None).unwrap(),
            NAMES.to_vec()
        );
        assert_eq!(
            propagated(Some("nofile,RLIMIT_CORE,NOFILE"), None, None).unwrap(),
            vec!["NOFILE", "CORE"]
        );
        assert!(propagated(Some("NONE"), None, None).unwrap().is_empty());
        assert_eq!(
            propagated(None, Some("ALL"), Some("CORE,NPROC"))
                .unwrap()
                .len(),
            8
        );
        assert_eq!(
            propagated(None, Some("STACK"), None).unwrap(),
            vec!["STACK"]
        );
        assert_eq!(
            propagated(Some("NOFILE,BOGUS"), None, None),
            Err("BOGUS".to_string())
        );
    }
}

//! Input environment variables (`SBATCH_PARTITION`, `SLURM_NTASKS`, `SALLOC_DEBUG`, ...): reading them into an
//! [`OptionSet`] with Slurm's rules. The environment is passed in by the caller; nothing here reads the process's.
//!
//! - for an option with several variables, the first one set in the table's priority order wins;
//! - a flag variable turns its flag on when it is empty, `yes` (any case), or a whole non-zero number, and is
//!   ignored otherwise (`0`, `no`, `true`, `1x`);
//! - the verbosity variables set a level (see `OptionSet::verbosity`);
//! - other values are checked like command-line values.

use std::collections::{BTreeMap, HashMap};

use super::error::{ErrCtx, OptError};
use super::set::{OptionSet, Source};
use super::table::{def, ArgKind, Command, OptId, OPTIONS};
use super::validate::{self, strtol_end};

/// Something environment variables can be looked up in.
pub trait EnvLookup {
    fn var(&self, name: &str) -> Option<&str>;
}

impl<S: std::hash::BuildHasher> EnvLookup for HashMap<String, String, S> {
    fn var(&self, name: &str) -> Option<&str> {
        self.get(name).map(String::as_str)
    }
}

impl EnvLookup for BTreeMap<String, String> {
    fn var(&self, name: &str) -> Option<&str> {
        self.get(name).map(String::as_str)
    }
}

impl<K: AsRef<str>, V: AsRef<str>> EnvLookup for [(K, V)] {
    /// The last definition wins, as when a later `export` replaces an earlier one.
    fn var(&self, name: &str) -> Option<&str> {
        self.iter()
            .rev()
            .find(|(k, _)| k.as_ref() == name)
            .map(|(_, v)| v.as_ref())
    }
}

impl<K: AsRef<str>, V: AsRef<str>> EnvLookup for Vec<(K, V)> {
    fn var(&self, name: &str) -> Option<&str> {
        self.as_slice().var(name)
    }
}

/// Whether a flag variable's value turns the flag on.
pub fn env_flag_on(value: &str) -> bool {
    if value.is_empty() || value.eq_ignore_ascii_case("yes") {
        return true;
    }
    let (n, used) = strtol_end(value);
    used == value.len() && n != 0
}

/// Whether the environment turns on flag `id` for `cmd`.
pub fn env_flag<E: EnvLookup + ?Sized>(cmd: Command, env: &E, id: OptId) -> bool {
    def(id)
        .env_vars(cmd)
        .find_map(|v| env.var(v))
        .is_some_and(env_flag_on)
}

/// Applies every input variable `cmd` reads to `set`, checking values as Slurm does.
pub fn apply_env<E: EnvLookup + ?Sized>(
    cmd: Command,
    ctx: &ErrCtx,
    env: &E,
    set: &mut OptionSet,
) -> Result<(), OptError> {
    for d in OPTIONS {
        let Some((var, value)) = d.env_vars(cmd).find_map(|v| env.var(v).map(|val| (v, val)))
        else {
            continue;
        };
        let source = Source::Env { var };
        if d.id == OptId::Verbose {
            let level = u32::try_from(strtol_end(value).0.max(0)).unwrap_or(u32::MAX);
            // Recorded even at level 0: sbatch then ignores -v on its command line.
            set.unset(OptId::Verbose);
            set.set(OptId::Verbose, None, source);
            set.set_count(OptId::Verbose, level);
            continue;
        }
        if d.arg == ArgKind::None {
            if env_flag_on(value) {
                set.set(d.id, None, source);
            }
            continue;
        }
        validate::check(ctx, d.id, Some(value))?;
        set.set(d.id, Some(value.to_string()), source);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn apply(cmd: Command, pairs: &[(&str, &str)]) -> Result<OptionSet, OptError> {
        let mut set = OptionSet::new();
        apply_env(cmd, &ErrCtx::new(cmd), &env(pairs), &mut set)?;
        Ok(set)
    }

    #[test]
    fn flag_values() {
        for on in [
            "",
            "1",
            "yes",
            "YES",
            "2",
            "-1",
            " 1",
            "01",
            "+1",
            "99999999999",
        ] {
            assert!(env_flag_on(on), "{on:?}");
        }
        for off in [
            "0", "no", "x", "true", "TRUE", "1x", "1 ", "00", "0x1", "y", "on", " yes",
        ] {
            assert!(!env_flag_on(off), "{off:?}");
        }
    }

    #[test]
    fn priority_between_variables() {
        let s = apply(
            Command::Sbatch,
            &[("SBATCH_CLUSTERS", "c1"), ("SLURM_CLUSTERS", "c2")],
        )
        .unwrap();
        assert_eq!(s.value(OptId::Clusters), Some("c2"));
        let s = apply(
            Command::Sbatch,
            &[
                ("SBATCH_HINT", "nomultithread"),
                ("SLURM_HINT", "compute_bound"),
            ],
        )
        .unwrap();
        assert_eq!(s.value(OptId::Hint), Some("nomultithread"));
        let s = apply(
            Command::Salloc,
            &[
                ("SALLOC_HINT", "nomultithread"),
                ("SLURM_HINT", "compute_bound"),
            ],
        )
        .unwrap();
        assert_eq!(s.value(OptId::Hint), Some("compute_bound"));
        let s = apply(
            Command::Srun,
            &[("SLURM_NTASKS", "3"), ("SLURM_NPROCS", "4")],
        )
        .unwrap();
        assert_eq!(s.value(OptId::Ntasks), Some("3"));
        let s = apply(
            Command::Srun,
            &[("SLURM_EXPORT_ENV", "X"), ("SRUN_EXPORT_ENV", "Y")],
        )
        .unwrap();
        assert_eq!(s.value(OptId::Export), Some("Y"));
        let s = apply(
            Command::Srun,
            &[("SLURM_REMOTE_CWD", "/a"), ("SLURM_WORKING_DIR", "/b")],
        )
        .unwrap();
        assert_eq!(s.value(OptId::Chdir), Some("/b"));
    }

    #[test]
    fn variables_belong_to_their_command() {
        let s = apply(
            Command::Salloc,
            &[("SBATCH_PARTITION", "y"), ("SLURM_PARTITION", "x")],
        )
        .unwrap();
        assert!(!s.is_set(OptId::Partition));
        let s = apply(
            Command::Sbatch,
            &[("SBATCH_CPUS_PER_TASK", "3"), ("SLURM_CPUS_PER_TASK", "4")],
        )
        .unwrap();
        assert!(s.is_empty());
    }

    #[test]
    fn flags_requeue_and_verbosity() {
        let s = apply(
            Command::Sbatch,
            &[("SBATCH_NO_REQUEUE", "0"), ("SBATCH_REQUEUE", "1")],
        )
        .unwrap();
        assert!(s.is_set(OptId::Requeue) && !s.is_set(OptId::NoRequeue));
        let s = apply(Command::Sbatch, &[("SBATCH_NO_REQUEUE", "")]).unwrap();
        assert!(s.is_set(OptId::NoRequeue));
        let s = apply(Command::Sbatch, &[("SBATCH_DEBUG", "3")]).unwrap();
        assert_eq!(s.verbosity(), 3);
        assert_eq!(
            s.source(OptId::Verbose),
            Some(Source::Env {
                var: "SBATCH_DEBUG"
            })
        );
    }

    #[test]
    fn values_are_checked() {
        let e = apply(Command::Sbatch, &[("SBATCH_NO_KILL", "1")]).unwrap_err();
        assert_eq!(
            e.lines,
            vec!["sbatch: error: Invalid --no-kill specification"]
        );
        assert_eq!(e.exit_code, 255);
        let s = apply(Command::Sbatch, &[("SBATCH_NO_KILL", "off")]).unwrap();
        assert_eq!(s.value(OptId::NoKill), Some("off"));
    }
}

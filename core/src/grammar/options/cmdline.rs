//! The command line as a whole: heterogeneous components separated by `:` words, the options of each, and the
//! positional words (sbatch's script and its arguments, the command salloc or srun runs).
//!
//! sbatch and salloc stop at the first positional word: it and everything after it belong to the script or the
//! command, `:` included. srun gives every component its own command, running up to the next `:` word.

use super::argv::{self, RawOpt};
use super::error::{ErrCtx, OptError};
use super::table::{Command, OptId};
use super::validate;

/// The options and positional words of one component on the command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CmdComponent {
    pub opts: Vec<RawOpt>,
    /// The script or command words that followed this component's options (only the last component has any for
    /// sbatch and salloc).
    pub positional: Vec<String>,
}

/// A whole command line, split into components.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    pub cmd: Command,
    pub components: Vec<CmdComponent>,
}

/// What the command should do instead of running: print help, usage or its version, then exit with 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EarlyAction {
    Help,
    Usage,
    Version,
    /// `--gres=help` or `--gres=list`: print the configured GRES types.
    GresList,
}

impl CommandLine {
    /// Splits `args` (program name excluded) with getopt's rules, per component.
    pub fn parse(cmd: Command, ctx: &ErrCtx, args: &[String]) -> Result<CommandLine, OptError> {
        let mut components = Vec::new();
        let mut start = 0;
        loop {
            let rest = &args[start..];
            let scanned = argv::scan(cmd, ctx, rest)?;
            let opts = scanned
                .opts
                .into_iter()
                .map(|o| RawOpt {
                    index: o.index + start,
                    ..o
                })
                .collect();
            let after = start + scanned.optind;
            let separator = !scanned.saw_double_dash && args.get(after).is_some_and(|w| w == ":");
            if separator {
                components.push(CmdComponent {
                    opts,
                    positional: Vec::new(),
                });
                start = after + 1;
                continue;
            }
            if cmd == Command::Srun {
                // srun: this component's command runs up to the next `:`.
                let end = args[after..]
                    .iter()
                    .position(|w| w == ":")
                    .map_or(args.len(), |p| after + p);
                components.push(CmdComponent {
                    opts,
                    positional: args[after..end].to_vec(),
                });
                if end < args.len() {
                    start = end + 1;
                    continue;
                }
            } else {
                components.push(CmdComponent {
                    opts,
                    positional: args[after..].to_vec(),
                });
            }
            break;
        }
        Ok(CommandLine { cmd, components })
    }

    /// Every option of every component, in command-line order.
    pub fn all_opts(&self) -> impl Iterator<Item = &RawOpt> {
        self.components.iter().flat_map(|c| c.opts.iter())
    }

    /// The positional words of the last component (sbatch: script and arguments; salloc: the command).
    pub fn positional(&self) -> &[String] {
        self.components
            .last()
            .map_or(&[], |c| c.positional.as_slice())
    }

    /// Slurm's first pass: options are acted on in order, so a bad value before `--help` is reported instead of
    /// the help, and `--help` before a bad value wins.
    pub fn first_pass(&self, ctx: &ErrCtx) -> Result<Option<EarlyAction>, OptError> {
        for o in self.all_opts() {
            match o.id {
                OptId::Help => return Ok(Some(EarlyAction::Help)),
                OptId::Usage => return Ok(Some(EarlyAction::Usage)),
                OptId::Version => return Ok(Some(EarlyAction::Version)),
                OptId::Gres
                    if o.value.as_deref().is_some_and(|v| {
                        v.eq_ignore_ascii_case("help") || v.eq_ignore_ascii_case("list")
                    }) =>
                {
                    return Ok(Some(EarlyAction::GresList))
                }
                id => validate::check(ctx, id, o.value.as_deref())?,
            }
        }
        Ok(None)
    }

    /// The value of the last occurrence of `id` anywhere on the command line.
    pub fn last_value(&self, id: OptId) -> Option<Option<&str>> {
        self.all_opts()
            .filter(|o| o.id == id)
            .last()
            .map(|o| o.value.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn parse(cmd: Command, s: &str) -> CommandLine {
        CommandLine::parse(cmd, &ErrCtx::new(cmd), &words(s)).unwrap()
    }

    #[test]
    fn sbatch_components_end_at_the_script() {
        let cl = parse(Command::Sbatch, "-N1 : -N2 job.sh a : b");
        assert_eq!(cl.components.len(), 2);
        assert_eq!(cl.positional(), words("job.sh a : b").as_slice());
        let cl = parse(Command::Sbatch, "-N1 : : -N3 job.sh");
        assert_eq!(cl.components.len(), 3);
        assert!(cl.components[1].opts.is_empty());
        assert_eq!(cl.components[2].opts[0].index, 3);
    }

    #[test]
    fn srun_components_have_their_own_commands() {
        let cl = parse(Command::Srun, "-N1 hostname -s : -N2 date");
        assert_eq!(cl.components.len(), 2);
        assert_eq!(cl.components[0].positional, words("hostname -s"));
        assert_eq!(cl.components[1].positional, words("date"));
        assert_eq!(cl.components[1].opts[0].value.as_deref(), Some("2"));
    }

    #[test]
    fn double_dash_makes_colon_positional() {
        let cl = parse(Command::Salloc, "-N1 -- : x");
        assert_eq!(cl.components.len(), 1);
        assert_eq!(cl.positional(), words(": x").as_slice());
    }

    #[test]
    fn first_pass_acts_in_order() {
        let ctx = ErrCtx::new(Command::Sbatch);
        let cl = parse(Command::Sbatch, "--help -c abc");
        assert_eq!(cl.first_pass(&ctx).unwrap(), Some(EarlyAction::Help));
        let cl = parse(Command::Sbatch, "-c abc --help");
        let err = cl.first_pass(&ctx).unwrap_err();
        assert_eq!(
            err.lines,
            vec!["sbatch: error: Invalid numeric value \"abc\" for --cpus-per-task."]
        );
        assert_eq!(err.exit_code, 1);
        let cl = parse(Command::Sbatch, "-V --usage");
        assert_eq!(cl.first_pass(&ctx).unwrap(), Some(EarlyAction::Version));
    }
}

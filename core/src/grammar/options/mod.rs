//! sbatch, srun and salloc options: one table ([`table`]) drives parsing, the environment, `#SBATCH` lines, help
//! and usage, with Slurm 22.05's syntax, precedence and error messages. The query commands (squeue, sinfo,
//! scontrol, ...) have one table each ([`query`]), read by the same getopt engine and help renderer.
//!
//! Parsing is pure. The caller passes the arguments, the environment (any [`EnvLookup`]) and, for sbatch, a
//! function that loads the script, so every rule can be tested without a process around it.
//!
//! Stage 1 (here) turns the inputs into an [`OptionSet`] per heterogeneous component: for every option given,
//! the value that won and its [`Source`]. Precedence is command line > environment > `#PBS`/`#BSUB` >
//! `#SBATCH`. Values are checked as Slurm checks them while reading (see [`validate`]); they stay strings.
//! Options Spur does not act on are still parsed and kept.
//!
//! The flow mirrors Slurm's: the command line is read first and acted on in order (so `--help` or a bad value,
//! whichever comes first, decides), then sbatch loads and checks the script, reads its directives, then the
//! environment, then applies the command line again on top.

pub mod argv;
pub mod cmdline;
pub mod directives;
pub mod env;
pub mod error;
pub(crate) mod getopt;
pub mod help;
pub mod het;
pub mod query;
pub mod resolve;
pub mod set;
pub mod slurm_help;
pub mod table;
pub mod validate;
pub mod wrappers;

pub use cmdline::{CmdComponent, CommandLine, EarlyAction};
pub use directives::{check_script, scan_directives, wrap_script, ScriptDirectives};
pub use env::{apply_env, EnvLookup};
pub use error::{ErrCtx, ErrorKind, ExitClass, OptError};
pub use help::{help_text, help_text_for, reference_markdown, usage_text};
pub use resolve::{resolve, ResolveConfig, Resolved};
pub use set::{OptEntry, OptionSet, Source};
pub use table::{def, ArgKind, Command, OptDef, OptId, OPTIONS};

use argv::RawOpt;
use directives::DirectiveWord;

/// One heterogeneous job component (a plain job has exactly one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Component {
    pub options: OptionSet,
    /// srun: this component's program and arguments. sbatch and salloc keep their script or command in
    /// [`Parsed::positional`] instead.
    pub command: Vec<String>,
}

/// The script sbatch will submit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// The name Slurm uses in messages: the script's base name, `stdin`, or `wrap` for `--wrap`.
    pub name: String,
    pub body: Vec<u8>,
    /// Whether sbatch generated it from `--wrap`.
    pub wrapped: bool,
}

/// A successful parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub cmd: Command,
    /// At least one.
    pub components: Vec<Component>,
    /// sbatch: the script path (if one was named) and its arguments; salloc: the command to run (may be empty);
    /// srun: the last component's command.
    pub positional: Vec<String>,
    /// sbatch only.
    pub script: Option<Script>,
    /// Lines Slurm prints to stderr without failing (deprecated `#SLURM` lines, `SLURM_EXIT_ERROR=0`, ...).
    pub warnings: Vec<String>,
}

/// What the command should do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Print help, usage or the version on stdout and exit with 0.
    Early(EarlyAction),
    Run(Parsed),
}

/// The error context and warnings that depend on `SLURM_EXIT_ERROR`.
fn context<E: EnvLookup + ?Sized>(cmd: Command, env: &E) -> (ErrCtx, Vec<String>) {
    let (error_exit, warning) = error::error_exit_from(cmd, env.var("SLURM_EXIT_ERROR"));
    (ErrCtx { cmd, error_exit }, warning.into_iter().collect())
}

/// Parses an sbatch invocation. `args` excludes the program name. `load_script` reads the named script file,
/// or standard input when given `None`; it returns `None` when the file cannot be opened.
pub fn parse_sbatch<E, F>(args: &[String], env: &E, load_script: F) -> Result<Outcome, OptError>
where
    E: EnvLookup + ?Sized,
    F: FnOnce(Option<&str>) -> Option<Vec<u8>>,
{
    let cmd = Command::Sbatch;
    let (ctx, mut warnings) = context(cmd, env);
    let cl = CommandLine::parse(cmd, &ctx, args)?;
    if let Some(action) = cl.first_pass(&ctx)? {
        return Ok(Outcome::Early(action));
    }
    let positional = cl.positional().to_vec();
    let script = load(&ctx, &cl, load_script)?;
    let dirs = scan_directives(&ctx, &script.name, &script.body)?;
    warnings.extend(dirs.warnings.iter().cloned());
    let ignore_wrappers = cl.last_value(OptId::IgnorePbs).is_some()
        || env::env_flag(cmd, env, OptId::IgnorePbs)
        || directive_sets(&ctx, &dirs, OptId::IgnorePbs)?;
    let wrapper_opts = if ignore_wrappers {
        Vec::new()
    } else {
        wrappers::translate(&ctx, &script.name, &script.body)?
    };
    let count = cl.components.len().max(dirs.components.len());
    let mut components = Vec::with_capacity(count);
    for i in 0..count {
        let mut set = OptionSet::new();
        if let Some(words) = dirs.components.get(i) {
            apply_directives(&ctx, words, &mut set)?;
        }
        for (opt, line) in &wrapper_opts {
            validate::check(&ctx, opt.id, opt.value.as_deref())?;
            set.set(opt.id, opt.value.clone(), Source::Wrapper { line: *line });
        }
        apply_env(cmd, &ctx, env, &mut set)?;
        apply_command_line(cmd, &cl, cl.components.get(i), &mut set);
        validate::check_late(&ctx, &set)?;
        components.push(Component {
            options: set,
            command: Vec::new(),
        });
    }
    het::propagate(&mut components);
    Ok(Outcome::Run(Parsed {
        cmd,
        components,
        positional,
        script: Some(script),
        warnings,
    }))
}

/// Parses an srun invocation (`args` without the program name).
pub fn parse_srun<E: EnvLookup + ?Sized>(args: &[String], env: &E) -> Result<Outcome, OptError> {
    parse_interactive(Command::Srun, args, env)
}

/// Parses a salloc invocation (`args` without the program name).
pub fn parse_salloc<E: EnvLookup + ?Sized>(args: &[String], env: &E) -> Result<Outcome, OptError> {
    parse_interactive(Command::Salloc, args, env)
}

fn parse_interactive<E: EnvLookup + ?Sized>(
    cmd: Command,
    args: &[String],
    env: &E,
) -> Result<Outcome, OptError> {
    let (ctx, warnings) = context(cmd, env);
    let cl = CommandLine::parse(cmd, &ctx, args)?;
    if let Some(action) = cl.first_pass(&ctx)? {
        return Ok(Outcome::Early(action));
    }
    let mut components = Vec::with_capacity(cl.components.len());
    for c in &cl.components {
        let mut set = OptionSet::new();
        apply_env(cmd, &ctx, env, &mut set)?;
        apply_command_line(cmd, &cl, Some(c), &mut set);
        validate::check_late(&ctx, &set)?;
        let command = if cmd == Command::Srun {
            c.positional.clone()
        } else {
            Vec::new()
        };
        components.push(Component {
            options: set,
            command,
        });
    }
    het::propagate(&mut components);
    let positional = cl.positional().to_vec();
    // `--mpi=list` lists the MPI plugins before Slurm's srun looks for a command (srun handles it).
    let lists_mpi = components
        .first()
        .is_some_and(|c| c.options.value(OptId::Mpi) == Some("list"));
    if cmd == Command::Srun && positional.is_empty() && !lists_mpi {
        return Err(ctx.fatal(ErrorKind::NoCommand, "No command given to execute."));
    }
    Ok(Outcome::Run(Parsed {
        cmd,
        components,
        positional,
        script: None,
        warnings,
    }))
}

/// Builds the script sbatch submits: the `--wrap` script, or the loaded file after Slurm's checks.
fn load<F>(ctx: &ErrCtx, cl: &CommandLine, load_script: F) -> Result<Script, OptError>
where
    F: FnOnce(Option<&str>) -> Option<Vec<u8>>,
{
    let positional = cl.positional();
    if let Some(wrap) = cl.last_value(OptId::Wrap) {
        if !positional.is_empty() {
            let msg = "Script arguments not permitted with --wrap option";
            return Err(ctx.error(ErrorKind::WrapWithScript, ExitClass::ErrorExit, &[msg]));
        }
        let body = wrap_script(wrap.unwrap_or("")).into_bytes();
        return Ok(Script {
            name: "wrap".into(),
            body,
            wrapped: true,
        });
    }
    let path = positional.first().map(String::as_str);
    let Some(body) = load_script(path) else {
        let msg = match path {
            Some(p) => format!("Unable to open file {p}"),
            None => "Unable to read the batch script from standard input".to_string(),
        };
        return Err(ctx.error(
            ErrorKind::ScriptUnreadable,
            ExitClass::ErrorExit,
            &[msg.as_str()],
        ));
    };
    check_script(ctx, &body)?;
    let name = path
        .map_or("stdin", |p| p.rsplit('/').next().unwrap_or(p))
        .to_string();
    Ok(Script {
        name,
        body,
        wrapped: false,
    })
}

/// Runs getopt over one component's directive words: the options with the line each came from.
pub fn directive_options(
    ctx: &ErrCtx,
    words: &[DirectiveWord],
) -> Result<Vec<(RawOpt, usize)>, OptError> {
    let texts: Vec<String> = words.iter().map(|w| w.text.clone()).collect();
    let scanned = argv::scan(Command::Sbatch, ctx, &texts)?;
    if let Some(extra) = texts.get(scanned.optind) {
        let msg = format!("Invalid directive found in batch script: {extra}");
        return Err(ctx.error(
            ErrorKind::InvalidDirective(extra.clone()),
            ExitClass::Minus1,
            &[msg.as_str()],
        ));
    }
    Ok(scanned
        .opts
        .into_iter()
        .map(|o| {
            let line = words.get(o.index).map_or(0, |w| w.line);
            (o, line)
        })
        .collect())
}

fn apply_directives(
    ctx: &ErrCtx,
    words: &[DirectiveWord],
    set: &mut OptionSet,
) -> Result<(), OptError> {
    for (opt, line) in directive_options(ctx, words)? {
        if !def(opt.id).directive {
            continue;
        }
        validate::check(ctx, opt.id, opt.value.as_deref())?;
        set.set(opt.id, opt.value, Source::Directive { line });
    }
    Ok(())
}

/// Whether any directive component sets `id` (sbatch decides about `#PBS` lines before applying options).
fn directive_sets(ctx: &ErrCtx, dirs: &ScriptDirectives, id: OptId) -> Result<bool, OptError> {
    for words in &dirs.components {
        if directive_options(ctx, words)?
            .iter()
            .any(|(o, _)| o.id == id)
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Applies a command-line component on top of `set` (values were checked by the first pass). Verbosity is
/// global to the command line and combines with the environment the way each command does it: sbatch lets
/// `SBATCH_DEBUG` replace the `-v` count, srun and salloc add the two.
fn apply_command_line(
    cmd: Command,
    cl: &CommandLine,
    comp: Option<&CmdComponent>,
    set: &mut OptionSet,
) {
    for o in comp.map_or(&[][..], |c| c.opts.as_slice()) {
        if o.id != OptId::Verbose {
            set.set(
                o.id,
                o.value.clone(),
                Source::CommandLine { index: o.index },
            );
        }
    }
    let mut vs = cl.all_opts().filter(|o| o.id == OptId::Verbose);
    let Some(first) = vs.next() else { return };
    let count = 1 + u32::try_from(vs.count()).unwrap_or(u32::MAX);
    let env_level = set.get(OptId::Verbose).map(|e| e.count);
    let level = match (cmd, env_level) {
        (Command::Sbatch, Some(_)) => return,
        (_, env) => env.unwrap_or(0).saturating_add(count),
    };
    set.unset(OptId::Verbose);
    set.set(
        OptId::Verbose,
        None,
        Source::CommandLine { index: first.index },
    );
    set.set_count(OptId::Verbose, level);
}

#[cfg(test)]
mod tests;

//! The option tables of the query commands (squeue, sinfo, scontrol, scancel, sacct, sacctmgr, sprio, sshare,
//! sstat, sattach, sbcast): one [`QueryTable`] per command, read by the same getopt engine as sbatch's table
//! ([`super::getopt`]) and by the `--help`/`--usage` renderer here, so each option is described once.
//!
//! These commands take no `#SBATCH` lines and act on options by name, so a row is simpler than sbatch's
//! [`super::OptDef`]: names, value kind, the input environment variables that stand in for it (`SQUEUE_STATES`
//! for `-t`), its `--help` entry and its item in the usage lines. Unlike sbatch, getopt here permutes: options may follow operands (`squeue -u me --start`). scontrol and
//! sacctmgr, whose commands are a grammar of their own, match their options as whole words ([`Scan::Words`]).

mod help_text;
mod sreport_table;
mod strigger_table;
mod tables;

pub use sreport_table::{SREPORT, SREPORT_HELP};
pub use strigger_table::STRIGGER;

pub use tables::{
    SACCT, SACCTMGR, SATTACH, SBCAST, SCANCEL, SCONTROL, SINFO, SPRIO, SQUEUE, SSHARE, SSTAT,
    TABLES,
};

use super::env::EnvLookup;
use super::error::{getopt_lines, ErrorKind, OptError};
use super::getopt::{self, Dialect, Hit, Spec};
use super::table::ArgKind;

/// One option of a query command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryOpt {
    /// The long name without dashes; the command asks [`Parsed`] about the option by this name.
    pub long: &'static str,
    pub short: Option<char>,
    pub arg: ArgKind,
    /// What `--help` shows after the name: ` LIST`, `=TASK`, `=`.
    pub metavar: &'static str,
    /// The `--help` description, lines separated by `\n`; empty for options `--help` does not list.
    pub help: &'static str,
    /// Its item in the usage lines (`[-A account]`); empty when it has none of its own.
    pub usage: &'static str,
    /// Whether the usage lines name its letter in the group of flags (`[-ahlrsv]`).
    pub letter: bool,
    /// Word-matched tables only: the option ends the scan (`--help`, `--version`), so what follows it is never
    /// looked at, as the commands' hand loops returned there.
    pub early: bool,
    /// The long name `--help` shows, where it is not `long` (sprio lists `-M` as `--cluster`, which getopt
    /// finds under `--clusters` first); empty: `long`.
    pub shown: &'static str,
    /// `--help` shows the name at column 2 with no room for a letter (sinfo's `--hide`, `--noconvert`).
    pub bare: bool,
    /// Other long names of the same option (sacct's `--fields` for `--format`): parsed under `long`, and never
    /// ambiguous with it, as glibc treats two entries with the same letter.
    pub aliases: &'static [&'static str],
    /// Input environment variables that set the option when the command line does not (`SQUEUE_STATES`),
    /// highest priority first.
    pub env: &'static [&'static str],
    /// How a set variable is read.
    pub env_kind: EnvKind,
}

/// How a query command reads an option's environment variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvKind {
    /// Set at all (even empty) turns a flag on; a value option takes the value as is.
    Plain,
    /// scancel's flags: `true`/`T` turn the flag on, `false`/`F` leave it off (any case), anything else is
    /// reported (`Unrecognized SCANCEL_BATCH value: x`) and ignored.
    TrueFalse,
}

/// A flag: `--long`, `-s`.
pub(crate) const fn flag(long: &'static str, short: Option<char>) -> QueryOpt {
    QueryOpt {
        long,
        short,
        arg: ArgKind::None,
        metavar: "",
        help: "",
        usage: "",
        letter: false,
        early: false,
        shown: "",
        bare: false,
        aliases: &[],
        env: &[],
        env_kind: EnvKind::Plain,
    }
}

/// An option that needs a value: `--long=v`, `--long v`, `-sv`, `-s v`.
pub(crate) const fn value(long: &'static str, short: Option<char>) -> QueryOpt {
    QueryOpt {
        arg: ArgKind::Required,
        ..flag(long, short)
    }
}

/// An option whose value is optional and only ever attached (`-j5`, `--jobs=5`).
pub(crate) const fn optional(long: &'static str, short: Option<char>) -> QueryOpt {
    QueryOpt {
        arg: ArgKind::Optional,
        ..flag(long, short)
    }
}

impl QueryOpt {
    /// The `--help` entry: what follows the name, and the description.
    pub(crate) const fn help(mut self, metavar: &'static str, help: &'static str) -> QueryOpt {
        self.metavar = metavar;
        self.help = help;
        self
    }

    /// Its own item in the usage lines.
    pub(crate) const fn usage(mut self, item: &'static str) -> QueryOpt {
        self.usage = item;
        self
    }

    /// Named by its letter in the usage lines' group of flags.
    pub(crate) const fn letter(mut self) -> QueryOpt {
        self.letter = true;
        self
    }

    pub(crate) const fn early(mut self) -> QueryOpt {
        self.early = true;
        self
    }

    /// The long name `--help` shows instead of `long`.
    pub(crate) const fn shown(mut self, name: &'static str) -> QueryOpt {
        self.shown = name;
        self
    }

    /// `--help` shows the name at column 2, without a letter's slot.
    pub(crate) const fn bare(mut self) -> QueryOpt {
        self.bare = true;
        self
    }

    /// Other long names it answers to.
    pub(crate) const fn aliases(mut self, names: &'static [&'static str]) -> QueryOpt {
        self.aliases = names;
        self
    }

    /// The input environment variables that stand in for the option, highest priority first.
    pub(crate) const fn env(mut self, vars: &'static [&'static str]) -> QueryOpt {
        self.env = vars;
        self
    }

    /// Like [`QueryOpt::env`], for a flag whose variable says `true`/`T` or `false`/`F` (scancel's).
    pub(crate) const fn env_true_false(mut self, vars: &'static [&'static str]) -> QueryOpt {
        self.env = vars;
        self.env_kind = EnvKind::TrueFalse;
        self
    }
}

/// How a command reads its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    /// getopt_long, permuting: options anywhere, `--` ends them.
    Getopt,
    /// Whole words only (scontrol, sacctmgr, whose commands are a grammar of their own): a word that is exactly
    /// `--long` or `-s` of a row is that option wherever it stands, any other word is an operand. No
    /// abbreviations, clusters or values.
    Words {
        /// An unknown word starting with `-` before the first operand is getopt's "unrecognized option".
        reject_unknown_leading_dash: bool,
    },
}

/// Where the usage lines put the group of flags named by their letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Letters {
    None,
    First,
    Last,
}

/// The usage lines: the lead, then the rows' items in row order, wrapped as Slurm wraps them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// The start of the first line (`Usage: squeue`); the whole text for a command whose usage names no option.
    pub lead: &'static str,
    pub letters: Letters,
    /// What follows the options: `[job_id[_array_id][.step_id]]`.
    pub operands: &'static str,
    /// Lines after the first start with this many blanks.
    pub indent: usize,
    /// An item that would take a line past this width starts the next one.
    pub width: usize,
    /// The letter group as Slurm's usage writes it, where that is not the rows' letters (sinfo names a `-b` it
    /// has no option for, squeue adds `-j`); empty: the rows'.
    pub group: &'static str,
    /// Where the group goes on a line of its own: how that line starts (squeue's tab); empty: wrapped as any.
    pub group_line: &'static str,
}

impl Usage {
    /// Usage lines that name no option.
    pub(crate) const fn plain(lead: &'static str) -> Usage {
        Usage {
            lead,
            letters: Letters::None,
            operands: "",
            indent: 0,
            width: 0,
            group: "",
            group_line: "",
        }
    }
}

/// How `--help` entries are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryStyle {
    /// `  -a, --all`, long-only names as `      --hide`.
    Comma,
    /// `    -a or --all`, long-only names as `          --help`.
    Or,
    /// The row's help is its whole entry, names included, as Slurm lays it out by hand (sacct, sstat,
    /// scontrol, sacctmgr: colons, names on a line of their own, aliases); the tests check that the entry names
    /// the row's letter and long name.
    Verbatim,
}

/// One keyword (command) of scontrol or sacctmgr as `--help` describes it: the keyword and its whole entry,
/// laid out by hand as the options of [`EntryStyle::Verbatim`] are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keyword {
    pub name: &'static str,
    pub entry: &'static str,
}

/// A line of a padded help (see [`HelpList::pad_to`]) that Slurm leaves short.
pub const NO_PAD: char = '\u{1}';

/// A `--help` that lists the options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelpList {
    /// Whether the text starts with the table's usage lines.
    pub usage_first: bool,
    /// Lines before the entries.
    pub head: &'static [&'static str],
    pub style: EntryStyle,
    /// Where descriptions start.
    pub column: usize,
    /// Every line padded with blanks to this width (0: none), as sshare's help is.
    pub pad_to: usize,
    /// Lines after the entries (padded too).
    pub tail: &'static [&'static str],
    /// Text after the last line, as is.
    pub end: &'static str,
    /// The long names of the rows the entries describe, in `--help` order, where it is not the rows' order
    /// (scancel, sinfo, squeue and sprio list their options alphabetically by letter, the usage lines do not).
    /// A name may come twice (squeue lists `--name` under `-n` and again alone): the second time it is shown
    /// without its letter.
    pub order: &'static [&'static str],
    /// Options listed after the others under their own title `Help options:` (`--help`, `--usage`), each as
    /// `  --long` and its description.
    pub help_options: &'static [&'static str],
    /// Lines after the option entries and before the keywords.
    pub between: &'static [&'static str],
    /// The keywords of a command with a grammar of its own (scontrol, sacctmgr), listed after `between`.
    pub keywords: &'static [Keyword],
}

/// What `--help` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Help {
    /// The usage lines (Slurm's squeue, sinfo, sprio, scancel and scontrol print their usage).
    Usage,
    List(HelpList),
}

/// One query command's options and how it reads and describes them.
#[derive(Debug, Clone, Copy)]
pub struct QueryTable {
    pub program: &'static str,
    /// In the order `--help` and the usage lines list them.
    pub rows: &'static [QueryOpt],
    /// The long names in getopt's search order, which is the order an ambiguous abbreviation's candidates are
    /// listed in; empty when it is the row order.
    pub getopt_order: &'static [&'static str],
    pub scan: Scan,
    pub usage: Usage,
    pub help: Help,
}

/// A parsed command line, with the options the environment set.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Options by long name: first those the environment set (see `from_env`), then the command line's in order,
    /// so that the last value of an option is the one that wins, as in Slurm, where the environment is read first
    /// and the command line overrides it.
    pub options: Vec<(&'static str, Option<String>)>,
    pub positional: Vec<String>,
    /// The variable behind each of the first `from_env.len()` entries of `options`.
    pub from_env: Vec<&'static str>,
    /// Environment values the command reports and ignores (`Unrecognized SCANCEL_BATCH value: x`), without the
    /// program's prefix.
    pub env_errors: Vec<String>,
}

impl Parsed {
    /// Whether the option is set, on the command line or by its environment variable.
    pub fn has(&self, long: &str) -> bool {
        self.options.iter().any(|(n, _)| *n == long)
    }

    /// Whether the option is on the command line itself.
    pub fn cli_has(&self, long: &str) -> bool {
        self.options[self.from_env.len()..]
            .iter()
            .any(|(n, _)| *n == long)
    }

    /// The environment variable that set the option, when the environment did.
    pub fn env_var(&self, long: &str) -> Option<&'static str> {
        self.options
            .iter()
            .zip(&self.from_env)
            .find(|((n, _), _)| *n == long)
            .map(|(_, var)| *var)
    }

    /// The value the environment gave the option, even where the command line replaces it.
    pub fn env_value(&self, long: &str) -> Option<&str> {
        self.options[..self.from_env.len()]
            .iter()
            .find(|(n, _)| *n == long)
            .and_then(|(_, v)| v.as_deref())
    }

    /// Every value given for any of `longs`, in command-line order: for the options Slurm's commands add to a
    /// list on each use (sacct's `-j`, `-u`, `-s`, `-o`, ...) rather than replace. A command-line value replaces
    /// the environment's instead of adding to it.
    pub fn values<'a>(&'a self, longs: &'a [&'a str]) -> impl Iterator<Item = &'a str> + 'a {
        let skip = if longs.iter().any(|l| self.cli_has(l)) {
            self.from_env.len()
        } else {
            0
        };
        self.options[skip..]
            .iter()
            .filter(move |(n, _)| longs.contains(n))
            .filter_map(|(_, v)| v.as_deref())
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

/// The row's name that is `name` (its long name or one of its aliases), as a `'static` string.
fn name_of(row: &QueryOpt, name: &str) -> &'static str {
    row.aliases
        .iter()
        .copied()
        .find(|a| *a == name)
        .unwrap_or(row.long)
}

/// A row as the getopt engine sees it: its index tells options apart.
#[derive(Debug, Clone, Copy)]
struct Row(usize, &'static QueryOpt);

impl Spec for Row {
    fn arg(self) -> ArgKind {
        self.1.arg
    }

    fn same(self, other: Self) -> bool {
        self.0 == other.0
    }
}

impl QueryTable {
    /// The long names in getopt order, each once, with the first row that has it.
    fn longs(&self) -> Vec<(&'static str, Row)> {
        let first_row = |name: &str| {
            self.rows
                .iter()
                .enumerate()
                .find(|(_, r)| r.long == name || r.aliases.contains(&name))
                .map(|(i, r)| (name_of(r, name), Row(i, r)))
        };
        let mut out: Vec<(&'static str, Row)> = Vec::new();
        let names: Vec<&str> = if self.getopt_order.is_empty() {
            self.rows.iter().map(|r| r.long).collect()
        } else {
            self.getopt_order.to_vec()
        };
        for name in names {
            if out.iter().all(|(n, _)| *n != name) {
                out.extend(first_row(name));
            }
        }
        out
    }

    fn by_short(&self, c: char) -> Option<Row> {
        self.rows
            .iter()
            .enumerate()
            .find(|(_, r)| r.short == Some(c))
            .map(|(i, r)| Row(i, r))
    }

    /// The error a getopt failure ends the command with: getopt's two lines and status 1.
    fn error(&self, kind: ErrorKind) -> OptError {
        let lines = getopt_lines(self.program, &kind);
        OptError {
            kind,
            lines,
            exit_code: 1,
        }
    }

    /// Parses `args` (program name excluded), then adds what the rows' environment variables in `env` set, as
    /// Slurm's commands read their variables before the command line.
    pub fn parse_env<E: EnvLookup + ?Sized>(
        &self,
        args: &[String],
        env: &E,
    ) -> Result<Parsed, OptError> {
        let mut parsed = self.parse(args)?;
        let mut options = Vec::new();
        for row in self.rows {
            let Some((var, value)) = row.env.iter().find_map(|v| env.var(v).map(|x| (*v, x)))
            else {
                continue;
            };
            let on = match (row.arg, row.env_kind) {
                (ArgKind::None, EnvKind::TrueFalse) => {
                    if ["true", "t"].iter().any(|t| value.eq_ignore_ascii_case(t)) {
                        Some(None)
                    } else if ["false", "f"].iter().any(|f| value.eq_ignore_ascii_case(f)) {
                        None
                    } else {
                        parsed
                            .env_errors
                            .push(format!("Unrecognized {var} value: {value}"));
                        None
                    }
                }
                (ArgKind::None, EnvKind::Plain) => Some(None),
                _ => Some(Some(value.to_string())),
            };
            if let Some(v) = on {
                options.push((row.long, v));
                parsed.from_env.push(var);
            }
        }
        options.append(&mut parsed.options);
        parsed.options = options;
        Ok(parsed)
    }

    /// Parses `args` (program name excluded), without the environment.
    pub fn parse(&self, args: &[String]) -> Result<Parsed, OptError> {
        match self.scan {
            Scan::Getopt => self.parse_getopt(args),
            Scan::Words {
                reject_unknown_leading_dash,
            } => self.parse_words(args, reject_unknown_leading_dash),
        }
    }

    fn parse_getopt(&self, args: &[String]) -> Result<Parsed, OptError> {
        let longs = self.longs();
        let mut parsed = Parsed::default();
        let mut i = 0;
        while i < args.len() {
            let arg = &args[i];
            if arg == "--" {
                parsed.positional.extend(args[i + 1..].iter().cloned());
                break;
            }
            let mut hits: Vec<Hit<Row>> = Vec::new();
            i = if let Some(body) = arg.strip_prefix("--") {
                let (hit, next) = getopt::long_option(&longs, Dialect::Query, args, i, body)
                    .map_err(|kind| self.error(kind))?;
                hits.push(hit);
                next
            } else if arg.len() > 1 && arg.starts_with('-') {
                getopt::short_options(|c| self.by_short(c), args, i, &mut hits)
                    .map_err(|kind| self.error(kind))?
            } else {
                parsed.positional.push(arg.clone());
                i + 1
            };
            parsed
                .options
                .extend(hits.into_iter().map(|h| (h.spec.1.long, h.value)));
        }
        Ok(parsed)
    }

    fn parse_words(&self, args: &[String], reject_unknown: bool) -> Result<Parsed, OptError> {
        let mut parsed = Parsed::default();
        let mut words = args.iter();
        while let Some(arg) = words.next() {
            if let Some((row, attached)) = self.valued_word(arg) {
                // An option with a value (scontrol's -M, -u): attached (`--cluster=c`, `-Mc`) or the next word.
                let value = match attached {
                    Some(v) => v.to_string(),
                    None => match words.next() {
                        Some(v) => v.clone(),
                        None if arg.starts_with("--") => {
                            return Err(
                                self.error(ErrorKind::MissingArgument(row.long.to_string()))
                            );
                        }
                        None => {
                            let c = row.short.unwrap_or('?');
                            return Err(self.error(ErrorKind::MissingShortArgument(c)));
                        }
                    },
                };
                parsed.options.push((row.long, Some(value)));
                continue;
            }
            let row = self.rows.iter().find(|r| {
                arg.strip_prefix("--") == Some(r.long)
                    || r.short.is_some_and(|c| *arg == format!("-{c}"))
            });
            match row {
                Some(row) => {
                    parsed.options.push((row.long, None));
                    if row.early {
                        break;
                    }
                }
                None if reject_unknown && arg.starts_with('-') && parsed.positional.is_empty() => {
                    return Err(self.error(ErrorKind::UnrecognizedOption(arg.clone())));
                }
                None => parsed.positional.push(arg.clone()),
            }
        }
        Ok(parsed)
    }

    /// A word naming an option that takes a value, and the value written in the same word, if any.
    fn valued_word<'a>(&self, arg: &'a str) -> Option<(&'static QueryOpt, Option<&'a str>)> {
        self.rows
            .iter()
            .filter(|r| r.arg == ArgKind::Required)
            .find_map(|r| {
                if let Some(body) = arg.strip_prefix("--") {
                    let (name, value) = match body.split_once('=') {
                        Some((n, v)) => (n, Some(v)),
                        None => (body, None),
                    };
                    return (name == r.long || r.aliases.contains(&name)).then_some((r, value));
                }
                let c = r.short?;
                let rest = arg.strip_prefix('-')?.strip_prefix(c)?;
                Some((r, (!rest.is_empty()).then_some(rest)))
            })
    }

    /// What `--usage` prints: the usage lines, each ending with a newline.
    pub fn usage_text(&self) -> String {
        let usage = &self.usage;
        let letters: String = self
            .rows
            .iter()
            .filter(|r| r.letter)
            .filter_map(|r| r.short)
            .collect();
        let letters = if usage.group.is_empty() {
            letters
        } else {
            usage.group.to_string()
        };
        let group = (!letters.is_empty()).then(|| format!("[-{letters}]"));
        let own_line = !usage.group_line.is_empty();
        let first = (usage.letters == Letters::First).then(|| group.clone());
        let last = (usage.letters == Letters::Last).then_some(group.clone());
        let items = first
            .flatten()
            .into_iter()
            .chain(
                self.rows
                    .iter()
                    .filter(|r| !r.usage.is_empty())
                    .map(|r| r.usage.to_string()),
            )
            .chain(last.flatten().filter(|_| !own_line))
            .chain((!usage.operands.is_empty()).then(|| usage.operands.to_string()));
        let mut out = String::new();
        let mut line = usage.lead.to_string();
        for item in items {
            if line.len() + 1 + item.len() > usage.width {
                out.push_str(&line);
                out.push('\n');
                line = format!("{:indent$}{item}", "", indent = usage.indent);
            } else {
                line.push(' ');
                line.push_str(&item);
            }
        }
        out.push_str(&line);
        out.push('\n');
        if let Some(group) = group.filter(|_| own_line && usage.letters == Letters::Last) {
            out.push_str(usage.group_line);
            out.push_str(&group);
            out.push('\n');
        }
        out
    }

    /// The text of the first `--help` or `--usage` on the command line (Slurm's commands print it and exit at
    /// the first of them), or none.
    pub fn help_or_usage(&self, parsed: &Parsed) -> Option<String> {
        match parsed
            .options
            .iter()
            .find(|(n, _)| *n == "help" || *n == "usage")
        {
            Some(("help", _)) => Some(self.help_text()),
            Some(_) => Some(self.usage_text()),
            None => None,
        }
    }

    /// What `--help` prints.
    pub fn help_text(&self) -> String {
        match &self.help {
            Help::Usage => self.usage_text(),
            Help::List(list) => self.help_list(list),
        }
    }

    fn help_list(&self, list: &HelpList) -> String {
        let mut lines: Vec<String> = Vec::new();
        if list.usage_first {
            lines.extend(self.usage_text().lines().map(str::to_string));
        }
        lines.extend(list.head.iter().map(|l| l.to_string()));
        let entries: Vec<(&QueryOpt, bool)> = if list.order.is_empty() {
            self.rows
                .iter()
                .filter(|r| !r.help.is_empty() && !list.help_options.contains(&r.long))
                .map(|r| (r, true))
                .collect()
        } else {
            let mut seen: Vec<&str> = Vec::new();
            list.order
                .iter()
                .filter_map(|name| {
                    let row = self.rows.iter().find(|r| r.long == *name)?;
                    let first = !seen.contains(name);
                    seen.push(name);
                    Some((row, first))
                })
                .collect()
        };
        for (row, with_letter) in entries {
            let shown = if row.shown.is_empty() {
                row.long
            } else {
                row.shown
            };
            let short = row.short.filter(|_| with_letter);
            if list.style == EntryStyle::Verbatim {
                lines.extend(row.help.split('\n').map(str::to_string));
                continue;
            }
            let left = match (list.style, short) {
                _ if row.bare => format!("  --{shown}{}", row.metavar),
                (EntryStyle::Comma, Some(c)) => format!("  -{c}, --{shown}{}", row.metavar),
                (EntryStyle::Comma, None) => format!("      --{shown}{}", row.metavar),
                (EntryStyle::Or, Some(c)) => format!("    -{c} or --{shown}{}", row.metavar),
                (EntryStyle::Or, None) => format!("          --{shown}{}", row.metavar),
                (EntryStyle::Verbatim, _) => String::new(),
            };
            push_entry(&mut lines, &left, row.help, list.column);
        }
        if !list.help_options.is_empty() {
            lines.push(String::new());
            lines.push("Help options:".to_string());
            for name in list.help_options {
                if let Some(row) = self.rows.iter().find(|r| r.long == *name) {
                    let left = match row.short {
                        Some(c) => format!("  -{c}, --{}", row.long),
                        None => format!("  --{}", row.long),
                    };
                    push_entry(&mut lines, &left, row.help, list.column);
                }
            }
        }
        lines.extend(list.between.iter().map(|l| l.to_string()));
        for keyword in list.keywords {
            lines.extend(keyword.entry.split('\n').map(str::to_string));
        }
        lines.extend(list.tail.iter().map(|l| l.to_string()));
        let mut out = String::new();
        for line in lines {
            out.push_str(&padded(&line, list.pad_to));
            out.push('\n');
        }
        out.push_str(list.end);
        out
    }
}

/// A line of a help that Slurm pads with blanks to `pad_to` columns (0: none), as its C sources pad the string
/// literals: the padding was counted in the source, where tabs stop every 8 columns and a `"` is written `\"`
/// (so a line with quotes comes out short by as many blanks). Lines that end with a blank already, or with
/// [`NO_PAD`], are as Slurm left them.
fn padded(line: &str, pad_to: usize) -> String {
    if let Some(kept) = line.strip_suffix(NO_PAD) {
        return kept.to_string();
    }
    if pad_to == 0 || line.ends_with([' ', '\t']) {
        return line.to_string();
    }
    let mut width = line.matches('"').count();
    for c in line.chars() {
        width = if c == '\t' {
            (width / 8 + 1) * 8
        } else {
            width + 1
        };
    }
    format!("{line}{:1$}", "", pad_to.saturating_sub(width))
}

/// One `--help` entry: `left` and the description's first line from `column` on (after one blank where `left`
/// is longer), further lines indented to `column`, except those starting with a tab, which Slurm's sources
/// indent by tabs themselves and which are kept as they are.
fn push_entry(lines: &mut Vec<String>, left: &str, help: &str, column: usize) {
    let mut help = help.split('\n');
    let first = help.next().unwrap_or_default();
    if left.len() < column {
        lines.push(format!("{left:<column$}{first}"));
    } else {
        lines.push(format!("{left} {first}"));
    }
    lines.extend(help.map(|more| {
        if more.starts_with('\t') {
            more.to_string()
        } else {
            format!("{:column$}{more}", "")
        }
    }));
}

#[cfg(test)]
mod env_tests;
#[cfg(test)]
mod tests;

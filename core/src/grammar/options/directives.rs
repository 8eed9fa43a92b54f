//! Batch scripts: the sanity checks sbatch makes before reading one, `--wrap` scripts, and the scan of `#SBATCH`
//! lines into option words.
//!
//! The scan follows sbatch 22.05:
//! - directives are lines starting exactly with `#SBATCH` (or the old `#SLURM`, with a warning); nothing needs to
//!   follow the magic word before the first option (`#SBATCH-N2` works);
//! - the scan ends at the first line that is neither blank nor a comment once leading blanks are skipped;
//!   indented `#SBATCH` lines are comments;
//! - words split at blanks; `'` and `"` group, a backslash takes the next character literally, and an unquoted
//!   `#` ends the line; an unmatched quote or a word starting with `:` is fatal;
//! - a line whose first word is `hetjob` (or `packjob`) starts the next heterogeneous component; such a word
//!   later on a line ends that line;
//! - the words of all lines of a component form one argument vector for getopt, so an option's value may sit on
//!   the next line.

use std::borrow::Cow;

use super::error::{ErrCtx, ErrorKind, ExitClass, OptError};

/// One word from a directive line, with its 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectiveWord {
    pub text: String,
    pub line: usize,
}

/// The `#SBATCH` words of a script, per heterogeneous component, plus warnings Slurm prints on the way.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScriptDirectives {
    /// At least one component (possibly empty).
    pub components: Vec<Vec<DirectiveWord>>,
    pub warnings: Vec<String>,
}

/// The script sbatch builds for `--wrap=<command>`.
pub fn wrap_script(command: &str) -> String {
    format!("#!/bin/sh\n# This script was created by sbatch --wrap.\n\n{command}\n")
}

/// C's `isspace` in the C locale.
pub(crate) fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// The checks sbatch makes on a script before using it, in Slurm's order and with its messages.
pub fn check_script(ctx: &ErrCtx, body: &[u8]) -> Result<(), OptError> {
    let fail = |msgs: &[&str]| Err(ctx.error(ErrorKind::BadScript, ExitClass::ErrorExit, msgs));
    // Slurm tests for blankness as a C string, so text after a NUL byte does not count.
    let as_c_string = body.split(|b| *b == 0).next().unwrap_or(&[]);
    if body.is_empty() {
        fail(&["Batch script is empty!"])
    } else if as_c_string.iter().all(|b| is_c_space(*b)) {
        fail(&["Batch script contains only whitespace!"])
    } else if !body.starts_with(b"#!") {
        fail(&[
            "This does not look like a batch script.  The first",
            "line must start with #! followed by the path to an interpreter.",
            "For instance: #!/bin/sh",
        ])
    } else if body.contains(&0) {
        fail(&[
            "The Slurm controller does not allow scripts that",
            "contain a NULL character '\\0'.",
        ])
    } else if body.windows(2).any(|w| w == b"\r\n") {
        fail(&[
            "Batch script contains DOS line breaks (\\r\\n)",
            "instead of expected UNIX line breaks (\\n).",
        ])
    } else {
        Ok(())
    }
}

/// Collects the `#SBATCH` words of `body`. `file` names the script in fatal messages (Slurm uses the base name,
/// or `stdin`).
pub fn scan_directives(
    ctx: &ErrCtx,
    file: &str,
    body: &[u8],
) -> Result<ScriptDirectives, OptError> {
    let mut out = ScriptDirectives {
        components: vec![Vec::new()],
        warnings: Vec::new(),
    };
    let mut warned_slurm = false;
    let mut warned_packjob = false;
    for (idx, line) in lines(body).enumerate() {
        let lineno = idx + 1;
        let rest = if let Some(r) = line.strip_prefix(b"#SBATCH") {
            r
        } else if let Some(r) = line.strip_prefix(b"#SLURM") {
            if !warned_slurm {
                out.warnings.push(format!(
                    "{}: error: Change from #SLURM to #SBATCH in your script and verify the options are valid in sbatch",
                    ctx.cmd
                ));
                warned_slurm = true;
            }
            r
        } else {
            match line.iter().find(|b| !is_c_space(**b)) {
                None | Some(b'#') => continue,
                Some(_) => break,
            }
        };
        let rest = trim_start(rest);
        if let Some(word) = separator_word(rest) {
            if word.eq_ignore_ascii_case(b"packjob") && !warned_packjob {
                out.warnings.push(format!(
                    "{}: Warning: the \"packjob\" component separator is being deprecated. Please, use \"hetjob\" instead.",
                    ctx.cmd
                ));
                warned_packjob = true;
            }
            out.components.push(Vec::new());
            continue;
        }
        let words = line_words(ctx, file, lineno, rest, true)?;
        if let Some(current) = out.components.last_mut() {
            current.extend(
                words
                    .into_iter()
                    .map(|text| DirectiveWord { text, line: lineno }),
            );
        }
    }
    Ok(out)
}

/// Lines as Slurm's `next_line` yields them: split at `\n`, a final line without one included.
fn lines(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    let trimmed = body.strip_suffix(b"\n").unwrap_or(body);
    let empty = body.is_empty();
    trimmed.split(|b| *b == b'\n').filter(move |_| !empty)
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| is_c_space(**b)).count();
    &s[n..]
}

/// The unquoted word at the start of `s`, if it is a component separator (`hetjob`, `packjob`).
fn separator_word(s: &[u8]) -> Option<&[u8]> {
    let end = s
        .iter()
        .position(|b| is_c_space(*b) || *b == b'#')
        .unwrap_or(s.len());
    let word = &s[..end];
    (word.eq_ignore_ascii_case(b"hetjob") || word.eq_ignore_ascii_case(b"packjob")).then_some(word)
}

/// Splits what follows the magic word into words. With `separators`, a later `hetjob` word ends the line.
pub(crate) fn line_words(
    ctx: &ErrCtx,
    file: &str,
    lineno: usize,
    rest: &[u8],
    separators: bool,
) -> Result<Vec<String>, OptError> {
    let mut words = Vec::new();
    let mut pos = 0;
    loop {
        // Slurm's messages show the line from where the word scan started, leading blanks included.
        let shown = &rest[pos..];
        let start = pos + shown.iter().take_while(|b| is_c_space(**b)).count();
        match rest.get(start) {
            None => break,
            Some(b':') => {
                let msg = format!(
                    "{file}: line {lineno}: Unexpected `:` in [{}]",
                    lossy(shown)
                );
                return Err(ctx.fatal(ErrorKind::DirectiveSyntax { line: lineno }, &msg));
            }
            Some(_)
                if separators && !words.is_empty() && separator_word(&rest[start..]).is_some() =>
            {
                break
            }
            Some(_) => {}
        }
        let (word, end) = read_word(&rest[start..]).map_err(|q| {
            let msg = format!(
                "{file}: line {lineno}: Unmatched `{}` in [{}]",
                q as char,
                lossy(shown)
            );
            ctx.fatal(ErrorKind::DirectiveSyntax { line: lineno }, &msg)
        })?;
        // An empty word (a comment, or a bare "") ends the line, as in Slurm.
        let Some(word) = word else { break };
        words.push(word);
        pos = start + end;
    }
    Ok(words)
}

/// Reads one word; returns it (None if no character was kept) and how many bytes it used, or the quote character
/// left open.
fn read_word(s: &[u8]) -> Result<(Option<String>, usize), u8> {
    let mut buf = Vec::new();
    let mut kept = false;
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    let mut i = 0;
    while let Some(&b) = s.get(i) {
        if quote.is_none() && is_c_space(b) {
            break;
        }
        if escaped {
            escaped = false;
        } else if b == b'\\' {
            escaped = true;
            i += 1;
            continue;
        } else if let Some(q) = quote {
            if b == q {
                quote = None;
                i += 1;
                continue;
            }
        } else if b == b'"' || b == b'\'' {
            quote = Some(b);
            i += 1;
            continue;
        } else if b == b'#' {
            break;
        }
        buf.push(b);
        kept = true;
        i += 1;
    }
    if let Some(q) = quote {
        return Err(q);
    }
    Ok((kept.then(|| lossy(&buf).into_owned()), i))
}

fn lossy(b: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(b)
}

#[cfg(test)]
mod tests;

//! Walks a configuration file line by line and follows `include` directives through the caller's resolver, so
//! the parsers stay free of I/O. Shared by `slurm.conf` and `gres.conf`.

use super::error::{ConfError, ConfErrorKind, Location};
use super::lexer::{is_blank, is_space, leftover_text, logical_lines};

/// Returns the text of an included file, or why it could not be read (Slurm prints the reason after the path).
pub type IncludeResolver<'a> = dyn FnMut(&str) -> Result<String, String> + 'a;

/// A resolver for callers that have no include files: every include fails.
pub fn no_includes(path: &str) -> Result<String, String> {
    Err(format!("includes are not available here ({path})"))
}

/// How strictly to read a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseOptions {
    /// Keep unknown keys instead of failing, as Slurm's clients do when reading a newer daemon's file.
    pub ignore_unknown_keys: bool,
    /// How many files deep includes may nest before the reader gives up (Slurm has no limit and runs out of
    /// file descriptors instead).
    pub max_include_depth: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        Self {
            ignore_unknown_keys: false,
            max_include_depth: 16,
        }
    }
}

/// Receives every logical line that is not an `include`.
pub(crate) trait LineSink {
    fn line(&mut self, at: &Location, text: &str, errors: &mut Vec<ConfError>);

    /// The `ClusterName` seen so far, which `%c` in an include path expands to (lower-cased).
    fn cluster_name(&self) -> Option<String> {
        None
    }
}

pub(crate) struct Reader<'r, 'a> {
    resolver: &'r mut IncludeResolver<'a>,
    max_depth: usize,
    /// Files being read, outermost first, for loop detection.
    stack: Vec<String>,
    pub errors: Vec<ConfError>,
}

impl<'r, 'a> Reader<'r, 'a> {
    pub fn new(resolver: &'r mut IncludeResolver<'a>, options: &ParseOptions) -> Self {
        Self {
            resolver,
            max_depth: options.max_include_depth,
            stack: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// Reads `text` as the contents of `file`, feeding lines to `sink`. Returns false if this file (or one it
    /// includes) had an error.
    pub fn read(&mut self, file: &str, text: &str, sink: &mut dyn LineSink) -> bool {
        let before = self.errors.len();
        self.stack.push(file.to_string());
        for line in logical_lines(text) {
            if line.text.is_empty() {
                continue;
            }
            let at = Location::new(file, line.line);
            match include_target(&line.text) {
                Some((target, rest)) => self.include(&at, target, rest, sink),
                None => sink.line(&at, &line.text, &mut self.errors),
            }
        }
        self.stack.pop();
        self.errors.len() == before
    }

    fn include(&mut self, at: &Location, target: &str, rest: &str, sink: &mut dyn LineSink) {
        if !self.include_file(at, target, sink) {
            self.errors
                .push(ConfError::at(at, ConfErrorKind::IncludeFailed));
        } else if !is_blank(rest) {
            self.errors.push(ConfError::at(
                at,
                ConfErrorKind::Parse {
                    leftover: leftover_text(rest),
                },
            ));
        }
    }

    fn include_file(&mut self, at: &Location, target: &str, sink: &mut dyn LineSink) -> bool {
        let Some(name) = expand_cluster_name(target, sink) else {
            self.errors
                .push(ConfError::at(at, ConfErrorKind::IncludeNeedsClusterName));
            return false;
        };
        let path = full_path(&name, &at.file);
        if self.stack.contains(&path) {
            self.errors
                .push(ConfError::at(at, ConfErrorKind::IncludeLoop { path }));
            return false;
        }
        if self.stack.len() >= self.max_depth {
            self.errors.push(ConfError::at(
                at,
                ConfErrorKind::IncludeTooDeep {
                    path,
                    max: self.max_depth,
                },
            ));
            return false;
        }
        match (self.resolver)(&path) {
            Ok(text) => self.read(&path, &text, sink),
            Err(reason) => {
                self.errors.push(ConfError::at(
                    at,
                    ConfErrorKind::Unreadable { path, reason },
                ));
                false
            }
        }
    }
}

/// `include FILE` (keyword in any case, at the very start of the line, then a blank): the file name and the text
/// after it.
fn include_target(line: &str) -> Option<(&str, &str)> {
    let head = line.get(..7)?;
    if !head.eq_ignore_ascii_case("include") || !line[7..].starts_with(is_space) {
        return None;
    }
    let rest = line[7..].trim_start_matches(is_space);
    let end = rest.find(is_space).unwrap_or(rest.len());
    Some((&rest[..end], &rest[end..]))
}

/// Replaces every `%c` with the lower-cased `ClusterName`; `None` if one is needed and none is known yet.
fn expand_cluster_name(target: &str, sink: &dyn LineSink) -> Option<String> {
    if !target.contains("%c") {
        return Some(target.to_string());
    }
    let cluster = sink.cluster_name()?.to_lowercase();
    Some(target.replace("%c", &cluster))
}

/// Slurm's rule: absolute names stay, others are taken relative to the including file's directory (its text up
/// to the last `/`, or the whole name when it has none).
fn full_path(name: &str, including: &str) -> String {
    if name.starts_with('/') {
        return name.to_string();
    }
    let dir = including.rfind('/').map_or(including, |i| &including[..i]);
    format!("{dir}/{name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_keyword() {
        assert_eq!(include_target("include a.conf\n"), Some(("a.conf", "\n")));
        assert_eq!(
            include_target("INCLUDE\t/x/b.conf extra"),
            Some(("/x/b.conf", " extra"))
        );
        assert_eq!(include_target("includefoo=3"), None);
        assert_eq!(include_target("  include a.conf"), None);
        assert_eq!(include_target("include"), None);
    }

    #[test]
    fn paths_relative_to_the_including_file() {
        assert_eq!(
            full_path("nodes.conf", "/etc/slurm/slurm.conf"),
            "/etc/slurm/nodes.conf"
        );
        assert_eq!(full_path("/abs.conf", "/etc/slurm/slurm.conf"), "/abs.conf");
        assert_eq!(full_path("n.conf", "slurm.conf"), "slurm.conf/n.conf");
    }
}

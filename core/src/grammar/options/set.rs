//! [`OptionSet`]: the options of one job (or one heterogeneous job component) after merging every input, each
//! with the value that won and where it came from.

use std::collections::BTreeMap;

use super::table::{def, OptId};

/// Where a value came from. Later sources override earlier ones in this order:
/// `#SBATCH` lines, then translated `#PBS`/`#BSUB` lines, then the environment, then the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// A `#SBATCH` line (1-based line number in the script).
    Directive { line: usize },
    /// A `#PBS` or `#BSUB` line sbatch translated.
    Wrapper { line: usize },
    /// An input environment variable.
    Env { var: &'static str },
    /// The command line (index of the argument the option started in, program name excluded).
    CommandLine { index: usize },
}

impl Source {
    /// Precedence rank: a higher rank wins.
    pub fn rank(self) -> u8 {
        match self {
            Source::Directive { .. } => 0,
            Source::Wrapper { .. } => 1,
            Source::Env { .. } => 2,
            Source::CommandLine { .. } => 3,
        }
    }
}

/// The winning value of one option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptEntry {
    /// The value as given (None for flags and for optional values left out).
    pub value: Option<String>,
    pub source: Source,
    /// How many times the option was given in its source (`-vvv` is 3).
    pub count: u32,
}

/// The options of one job component.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OptionSet {
    entries: BTreeMap<OptId, OptEntry>,
}

impl OptionSet {
    pub fn new() -> OptionSet {
        OptionSet::default()
    }

    /// Records `id` from `source`, replacing what a source of the same or lower precedence set, and clearing the
    /// option it negates. Values from a lower-precedence source than the current one are ignored.
    pub fn set(&mut self, id: OptId, value: Option<String>, source: Source) {
        if let Some(old) = self.entries.get_mut(&id) {
            if old.source.rank() > source.rank() {
                return;
            }
            if old.source.rank() == source.rank() {
                old.count += 1;
                old.value = value;
                old.source = source;
                return;
            }
        }
        if let Some(neg) = def(id).negates {
            match self.entries.get(&neg) {
                // The opposite flag came from a stronger source: it stands.
                Some(e) if e.source.rank() > source.rank() => return,
                Some(_) => {
                    self.entries.remove(&neg);
                }
                None => {}
            }
        }
        self.entries.insert(
            id,
            OptEntry {
                value,
                source,
                count: 1,
            },
        );
    }

    /// Overrides how many times an option counts as given (a verbosity level from the environment).
    pub fn set_count(&mut self, id: OptId, count: u32) {
        if let Some(e) = self.entries.get_mut(&id) {
            e.count = count;
        }
    }

    /// Drops an option (used when a later input turns a flag back off).
    pub fn unset(&mut self, id: OptId) {
        self.entries.remove(&id);
    }

    pub fn get(&self, id: OptId) -> Option<&OptEntry> {
        self.entries.get(&id)
    }

    /// Whether the option was given at all.
    pub fn is_set(&self, id: OptId) -> bool {
        self.entries.contains_key(&id)
    }

    /// The value of an option that was given with one.
    pub fn value(&self, id: OptId) -> Option<&str> {
        self.entries.get(&id).and_then(|e| e.value.as_deref())
    }

    pub fn source(&self, id: OptId) -> Option<Source> {
        self.entries.get(&id).map(|e| e.source)
    }

    /// All options that were given, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (OptId, &OptEntry)> {
        self.entries.iter().map(|(k, v)| (*k, v))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The verbosity level (`-v` count, or what the environment set; see the parsing rules).
    pub fn verbosity(&self) -> u32 {
        self.entries.get(&OptId::Verbose).map_or(0, |e| e.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CL: Source = Source::CommandLine { index: 0 };
    const ENV: Source = Source::Env {
        var: "SBATCH_PARTITION",
    };
    const DIR: Source = Source::Directive { line: 2 };

    #[test]
    fn higher_precedence_wins_whatever_the_order() {
        let mut s = OptionSet::new();
        s.set(OptId::Partition, Some("cl".into()), CL);
        s.set(OptId::Partition, Some("env".into()), ENV);
        s.set(OptId::Partition, Some("dir".into()), DIR);
        assert_eq!(s.value(OptId::Partition), Some("cl"));
        assert_eq!(s.source(OptId::Partition), Some(CL));
    }

    #[test]
    fn same_source_last_wins_and_counts() {
        let mut s = OptionSet::new();
        s.set(OptId::Qos, Some("q1".into()), DIR);
        s.set(OptId::Qos, Some("q2".into()), Source::Directive { line: 3 });
        assert_eq!(s.value(OptId::Qos), Some("q2"));
        assert_eq!(s.get(OptId::Qos).map(|e| e.count), Some(2));
    }

    #[test]
    fn negation_clears_the_other_flag() {
        let mut s = OptionSet::new();
        s.set(OptId::Requeue, None, DIR);
        s.set(OptId::NoRequeue, None, CL);
        assert!(!s.is_set(OptId::Requeue));
        assert!(s.is_set(OptId::NoRequeue));
        // A lower-precedence negation cannot undo a higher one.
        s.set(OptId::Requeue, None, ENV);
        assert!(s.is_set(OptId::NoRequeue));
        assert!(!s.is_set(OptId::Requeue));
    }
}

//! Options a heterogeneous job's component passes on to the next one (Slurm's "propagated options"): a component
//! that does not set one of these itself takes the previous component's value (so a value runs on until a
//! component changes it, as Slurm reuses one option record across components), while resource options
//! (`--ntasks`, `--cpus-per-task`, ...) start from their defaults in each component.

use super::set::OptionSet;
use super::table::def;
use super::Component;

/// The propagated options by long name: Slurm's documented list, plus `--mem`, which Slurm 22.05's sbatch also
/// passes on (checked against it).
const PROPAGATED: &[&str] = &[
    "account",
    "acctg-freq",
    "begin",
    "cluster-constraint",
    "clusters",
    "comment",
    "deadline",
    "delay-boot",
    "dependency",
    "epilog",
    "error",
    "export",
    "export-file",
    "exclude",
    "get-user-env",
    "gid",
    "hold",
    "ignore-pbs",
    "immediate",
    "input",
    "job-name",
    "kill-on-bad-exit",
    "label",
    "mcs-label",
    "mem",
    "msg-timeout",
    "no-allocate",
    "no-requeue",
    "nice",
    "no-kill",
    "open-mode",
    "output",
    "parsable",
    "priority",
    "profile",
    "propagate",
    "prolog",
    "pty",
    "qos",
    "quiet",
    "quit-on-interrupt",
    "reboot",
    "reservation",
    "requeue",
    "signal",
    "slurmd-debug",
    "task-epilog",
    "task-prolog",
    "time",
    "test-only",
    "time-min",
    "uid",
    "unbuffered",
    "wait",
    "wait-all-nodes",
    "wckey",
    "chdir",
];

/// Copies each component's propagated options into the next one where it does not set them (nor their
/// negation) itself.
pub fn propagate(components: &mut [Component]) {
    for i in 1..components.len() {
        let (before, after) = components.split_at_mut(i);
        if let (Some(previous), Some(component)) = (before.last(), after.first_mut()) {
            fill_from(&previous.options, &mut component.options);
        }
    }
}

fn fill_from(first: &OptionSet, target: &mut OptionSet) {
    for (id, entry) in first.iter() {
        let d = def(id);
        if !PROPAGATED.contains(&d.long) || target.is_set(id) {
            continue;
        }
        if d.negates.is_some_and(|neg| target.is_set(neg)) {
            continue;
        }
        target.set(id, entry.value.clone(), entry.source);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::options::set::Source;
    use crate::grammar::options::OptId;

    fn component(opts: &[(OptId, &str)]) -> Component {
        let mut options = OptionSet::new();
        for (i, (id, value)) in opts.iter().enumerate() {
            options.set(
                *id,
                Some(value.to_string()),
                Source::CommandLine { index: i },
            );
        }
        Component {
            options,
            command: Vec::new(),
        }
    }

    #[test]
    fn later_components_take_propagated_options_only() {
        let mut comps = vec![
            component(&[
                (OptId::Time, "7"),
                (OptId::JobName, "foo"),
                (OptId::CpusPerTask, "2"),
                (OptId::Ntasks, "3"),
            ]),
            component(&[(OptId::Ntasks, "1")]),
            component(&[(OptId::Time, "9")]),
        ];
        propagate(&mut comps);
        let second = &comps[1].options;
        assert_eq!(second.value(OptId::Time), Some("7"));
        assert_eq!(second.value(OptId::JobName), Some("foo"));
        assert_eq!(second.value(OptId::Ntasks), Some("1"));
        assert!(!second.is_set(OptId::CpusPerTask));
        assert_eq!(comps[2].options.value(OptId::Time), Some("9"));
        assert_eq!(comps[2].options.value(OptId::JobName), Some("foo"));
        assert!(!comps[2].options.is_set(OptId::Ntasks));
    }
}

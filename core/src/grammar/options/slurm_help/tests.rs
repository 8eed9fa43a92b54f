use super::*;
use crate::grammar::options::table::options_for;

#[test]
fn every_entry_is_an_option_the_command_parses() {
    for cmd in Command::ALL {
        let layout = layout(cmd);
        for e in entries(layout.items) {
            assert!(
                by_long(cmd, e.long).is_some(),
                "{cmd} --help lists --{}",
                e.long
            );
        }
        for name in layout.unlisted {
            assert!(by_long(cmd, name).is_some(), "{cmd}: unlisted --{name}");
        }
    }
}

#[test]
fn every_option_the_command_parses_is_listed_or_named_unlisted() {
    for cmd in Command::ALL {
        let layout = layout(cmd);
        let listed = entries(layout.items);
        for d in options_for(cmd).filter(|d| !d.hidden) {
            let shown = listed.iter().any(|e| e.long == d.long);
            let unlisted = layout.unlisted.contains(&d.long);
            assert!(
                shown != unlisted,
                "{cmd} --{}: listed {shown}, unlisted {unlisted}",
                d.long
            );
        }
    }
}

#[test]
fn srun_help_layout() {
    let text = help_text(Command::Srun, "task/none");
    assert!(text.starts_with("Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]]"));
    assert!(text.contains(
        "\n  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n"
    ));
    assert!(text
        .contains("\n  -B  --extra-node-info=S[:C[:T]]  combine request of sockets per node,\n"));
    assert!(text.contains(
        "\n      --switches=max-switches{@max-time-to-wait}\n                              Optimum"
    ));
    assert!(!text.contains("--cpu-bind"));
    assert!(text.ends_with("  -V, --version               output version information and exit\n\n"));
    let affinity = help_text(Command::Srun, "task/affinity,task/cgroup");
    assert!(affinity.contains("\n      --cpu-bind=             Bind tasks to CPUs\n"));
    assert!(affinity.contains("\n      --mem-bind=             Bind memory"));
    let cgroup = help_text(Command::Srun, "task/cgroup");
    assert!(cgroup.contains("--hint=") && !cgroup.contains("--mem-bind"));
}

use super::*;
use crate::grammar::options::error::ErrorKind;

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

fn scan_ok(cmd: Command, s: &str) -> Scanned {
    scan(cmd, &ErrCtx::new(cmd), &words(s)).unwrap()
}

fn scan_err(cmd: Command, s: &str) -> Vec<String> {
    scan(cmd, &ErrCtx::new(cmd), &words(s)).unwrap_err().lines
}

fn pairs(s: &Scanned) -> Vec<(OptId, Option<&str>)> {
    s.opts.iter().map(|o| (o.id, o.value.as_deref())).collect()
}

#[test]
fn long_options_with_equals_or_separate_value() {
    let s = scan_ok(
        Command::Sbatch,
        "--partition=debug --qos normal --nice --nice=5 --exclusive",
    );
    assert_eq!(
        pairs(&s),
        vec![
            (OptId::Partition, Some("debug")),
            (OptId::Qos, Some("normal")),
            (OptId::Nice, None),
            (OptId::Nice, Some("5")),
            (OptId::Exclusive, None),
        ]
    );
    assert_eq!(s.optind, 6);
}

#[test]
fn a_required_value_may_look_like_an_option() {
    let s = scan_ok(Command::Sbatch, "--comment --hold -J -x");
    assert_eq!(
        pairs(&s),
        vec![
            (OptId::Comment, Some("--hold")),
            (OptId::JobName, Some("-x"))
        ]
    );
}

#[test]
fn optional_values_are_never_taken_from_the_next_word() {
    let s = scan_ok(Command::Sbatch, "--nice 5");
    assert_eq!(pairs(&s), vec![(OptId::Nice, None)]);
    assert_eq!(s.optind, 1, "5 is the script");
    let s = scan_ok(Command::Srun, "-I 5");
    assert_eq!(pairs(&s), vec![(OptId::Immediate, None)]);
    let s = scan_ok(Command::Srun, "-I5 -koff");
    assert_eq!(
        pairs(&s),
        vec![(OptId::Immediate, Some("5")), (OptId::NoKill, Some("off"))]
    );
}

#[test]
fn abbreviations() {
    let s = scan_ok(
        Command::Sbatch,
        "--part=debug --ntasks-per-n 4 --cluster x --clusters=y --tasks-per-node=2",
    );
    assert_eq!(
        pairs(&s),
        vec![
            (OptId::Partition, Some("debug")),
            (OptId::NtasksPerNode, Some("4")),
            (OptId::Clusters, Some("x")),
            (OptId::Clusters, Some("y")),
            (OptId::NtasksPerNode, Some("2")),
        ]
    );
    assert_eq!(s.opts[0].spelled, "--part");
    // An exact name wins over longer names it prefixes.
    assert_eq!(
        pairs(&scan_ok(Command::Sbatch, "--mem=1")),
        vec![(OptId::Mem, Some("1"))]
    );
    assert_eq!(
        pairs(&scan_ok(Command::Sbatch, "--wait")),
        vec![(OptId::Wait, None)]
    );
    // Different options share no prefix here: `--wait-a` can only be one.
    assert_eq!(
        pairs(&scan_ok(Command::Sbatch, "--wait-a=1")),
        vec![(OptId::WaitAllNodes, Some("1"))]
    );
    assert_eq!(
        pairs(&scan_ok(Command::Srun, "--cpu_=cores")),
        vec![(OptId::CpuBind, Some("cores"))]
    );
}

#[test]
fn ambiguity_lists_candidates_in_slurm_order() {
    assert_eq!(
        scan_err(Command::Sbatch, "--cluste=x"),
        vec![
            "sbatch: option '--cluste=x' is ambiguous; possibilities: '--cluster-constraint' '--cluster' '--clusters'",
            "Try \"sbatch --help\" for more information",
        ]
    );
    assert_eq!(
        scan_err(Command::Srun, "--j=1")[0],
        "srun: option '--j=1' is ambiguous; possibilities: '--jobid' '--job-name'"
    );
}

#[test]
fn short_clusters() {
    let s = scan_ok(Command::Srun, "-vvv -N2 -n 4 -lo out -Xk");
    assert_eq!(
        pairs(&s),
        vec![
            (OptId::Verbose, None),
            (OptId::Verbose, None),
            (OptId::Verbose, None),
            (OptId::Nodes, Some("2")),
            (OptId::Ntasks, Some("4")),
            (OptId::Label, None),
            (OptId::Output, Some("out")),
            (OptId::DisableStatus, None),
            (OptId::NoKill, None),
        ]
    );
    assert_eq!(s.opts[1].index, 0);
    assert_eq!(s.opts[4].index, 2);
}

#[test]
fn stops_at_the_first_positional_and_after_double_dash() {
    let s = scan_ok(Command::Sbatch, "-N1 job.sh -N2");
    assert_eq!(s.optind, 1);
    assert!(!s.saw_double_dash);
    let s = scan_ok(Command::Srun, "-N1 -- -N2");
    assert_eq!(s.optind, 2);
    assert!(s.saw_double_dash);
    let s = scan_ok(Command::Salloc, "- -N2");
    assert_eq!((s.optind, s.opts.len()), (0, 0));
}

#[test]
fn getopt_errors() {
    assert_eq!(
        scan_err(Command::Sbatch, "--frob=3")[0],
        "sbatch: unrecognized option '--frob=3'"
    );
    assert_eq!(
        scan_err(Command::Sbatch, "-j")[0],
        "sbatch: invalid option -- 'j'"
    );
    assert_eq!(
        scan_err(Command::Sbatch, "--part")[0],
        "sbatch: option '--partition' requires an argument"
    );
    assert_eq!(
        scan_err(Command::Sbatch, "-N1 -p")[0],
        "sbatch: option requires an argument -- 'p'"
    );
    assert_eq!(
        scan_err(Command::Sbatch, "--ho=3")[0],
        "sbatch: option '--hold' doesn't allow an argument"
    );
    assert_eq!(
        scan_err(Command::Salloc, "-o x")[0],
        "salloc: invalid option -- 'o'"
    );
    let e = scan(Command::Srun, &ErrCtx::new(Command::Srun), &words("--frob")).unwrap_err();
    assert_eq!(e.exit_code, 255);
    assert_eq!(e.kind, ErrorKind::UnrecognizedOption("--frob".into()));
}

#[test]
fn the_same_letter_means_different_options_per_command() {
    assert_eq!(
        pairs(&scan_ok(Command::Sbatch, "-W")),
        vec![(OptId::Wait, None)]
    );
    assert_eq!(
        pairs(&scan_ok(Command::Srun, "-W 5")),
        vec![(OptId::WaitAfterExit, Some("5"))]
    );
    assert_eq!(
        pairs(&scan_ok(Command::Salloc, "-K")),
        vec![(OptId::KillCommand, None)]
    );
}

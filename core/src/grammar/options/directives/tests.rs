use super::*;
use crate::grammar::options::table::Command;

fn ctx() -> ErrCtx {
    ErrCtx::new(Command::Sbatch)
}

fn scan(body: &str) -> ScriptDirectives {
    scan_directives(&ctx(), "job.sh", body.as_bytes()).unwrap()
}

/// Words per component, as plain strings.
fn texts(body: &str) -> Vec<Vec<String>> {
    scan(body)
        .components
        .into_iter()
        .map(|c| c.into_iter().map(|w| w.text).collect())
        .collect()
}

fn one(body: &str) -> Vec<String> {
    let mut comps = texts(body);
    assert_eq!(comps.len(), 1, "{body:?}");
    comps.remove(0)
}

fn fatal(body: &str) -> OptError {
    scan_directives(&ctx(), "job.sh", body.as_bytes()).unwrap_err()
}

#[test]
fn trailing_comments_and_several_options_per_line() {
    assert_eq!(
        one("#!/bin/sh\n#SBATCH -J x   # name\n#SBATCH -N 2 --tmp=1#c\n"),
        ["-J", "x", "-N", "2", "--tmp=1"]
    );
    assert_eq!(one("#!/bin/sh\n#SBATCH --comment=a#b\n"), ["--comment=a"]);
}

#[test]
fn quoting_and_escapes() {
    assert_eq!(
        one("#!/bin/sh\n#SBATCH -J \"my job\" --comment='a # b'\n"),
        ["-J", "my job", "--comment=a # b"]
    );
    assert_eq!(
        one("#!/bin/sh\n#SBATCH --account=a\"b c\"d\n"),
        ["--account=ab cd"]
    );
    assert_eq!(
        one("#!/bin/sh\n#SBATCH --comment=\"a\\\"b\" x\\\"y 'i\\'j'\n"),
        ["--comment=a\"b", "x\"y", "i'j"]
    );
    // A backslash before a blank keeps nothing together: the word ends there.
    assert_eq!(
        one("#!/bin/sh\n#SBATCH --comment=a\\ b\n"),
        ["--comment=a", "b"]
    );
    // An empty word ends the line.
    assert_eq!(one("#!/bin/sh\n#SBATCH -J x \"\" -N 2\n"), ["-J", "x"]);
}

#[test]
fn scan_stops_at_the_first_command() {
    let body = "#!/bin/sh\n\n   \n# comment\n   # indented comment\n#SBATCH -N1\n  #SBATCH -N9\nhostname\n#SBATCH -N3\n";
    assert_eq!(one(body), ["-N1"]);
    assert_eq!(one("#!/bin/sh\n#!/bin/other\n#SBATCH -N1\n"), ["-N1"]);
}

#[test]
fn only_lines_starting_exactly_with_the_magic_word() {
    assert!(one("#!/bin/sh\n# SBATCH -N1\n#sbatch -N2\n##SBATCH -N3\n").is_empty());
    // Slurm needs no blank after the magic word: `#SBATCH-x` is `-x`, `#SBATCHfoo` a stray word `foo`.
    assert_eq!(
        one("#!/bin/sh\n#SBATCH-x n1\n#SBATCHfoo\n#SBATCH\t--tmp=7\n"),
        ["-x", "n1", "foo", "--tmp=7"]
    );
    assert_eq!(one("#!/bin/sh\n#SBATCH\n"), Vec::<String>::new());
}

#[test]
fn old_magic_word_warns_once() {
    let d = scan("#!/bin/sh\n#SLURM -N1\n#SLURM -n2\n");
    assert_eq!(
        d.components,
        vec![vec![
            DirectiveWord {
                text: "-N1".into(),
                line: 2
            },
            DirectiveWord {
                text: "-n2".into(),
                line: 3
            },
        ]]
    );
    assert_eq!(d.warnings.len(), 1);
}

#[test]
fn hetjob_separators() {
    assert_eq!(
        texts("#!/bin/sh\n#SBATCH -N1\n#SBATCH hetjob\n#SBATCH -N2\n"),
        vec![vec!["-N1"], vec!["-N2"]]
    );
    assert_eq!(
        texts("#!/bin/sh\n#SBATCH   HetJob  # next\n#SBATCH -N2\n"),
        vec![vec![], vec!["-N2"]]
    );
    // The rest of a separator line is ignored; a separator word later on a line only ends that line.
    assert_eq!(
        texts("#!/bin/sh\n#SBATCH hetjob -N5\n#SBATCH -N2\n"),
        vec![vec![], vec!["-N2"]]
    );
    assert_eq!(
        one("#!/bin/sh\n#SBATCH --comment hetjob -N5\n#SBATCH -N2\n"),
        ["--comment", "-N2"]
    );
    assert_eq!(
        one("#!/bin/sh\n#SBATCH hetjobx \"hetjob\"\n"),
        ["hetjobx", "hetjob"]
    );
    let d = scan("#!/bin/sh\n#SBATCH packjob\n#SBATCH packjob\n");
    assert_eq!(d.components.len(), 3);
    assert_eq!(d.warnings.len(), 1);
}

#[test]
fn fatal_syntax_errors_quote_the_rest_of_the_line() {
    let e = fatal("#!/bin/sh\n#SBATCH --comment=\"x -N1\n");
    assert_eq!(
        e.lines,
        vec!["sbatch: fatal: job.sh: line 2: Unmatched `\"` in [--comment=\"x -N1]"]
    );
    assert_eq!(e.exit_code, 1);
    let e = fatal("#!/bin/sh\n#SBATCH --comment=x   :y\n");
    assert_eq!(
        e.lines,
        vec!["sbatch: fatal: job.sh: line 2: Unexpected `:` in [   :y]"]
    );
    let e = fatal("#!/bin/sh\n#SBATCH  : \n");
    assert_eq!(
        e.lines,
        vec!["sbatch: fatal: job.sh: line 2: Unexpected `:` in [: ]"]
    );
    // A colon inside a word is fine.
    assert_eq!(
        one("#!/bin/sh\n#SBATCH -d afterok:1\n"),
        ["-d", "afterok:1"]
    );
}

#[test]
fn line_numbers() {
    let d = scan("#!/bin/sh\n# c\n#SBATCH -J\n#SBATCH name\n");
    let lines: Vec<usize> = d.components[0].iter().map(|w| w.line).collect();
    assert_eq!(lines, vec![3, 4]);
}

#[test]
fn script_checks_in_slurm_order() {
    let check = |b: &[u8]| check_script(&ctx(), b).map_err(|e| e.lines);
    assert_eq!(
        check(b""),
        Err(vec!["sbatch: error: Batch script is empty!".to_string()])
    );
    assert_eq!(
        check(b" \n\t\r\n"),
        Err(vec![
            "sbatch: error: Batch script contains only whitespace!".to_string()
        ])
    );
    assert_eq!(
        check(b"\0#!/bin/sh\n"),
        Err(vec![
            "sbatch: error: Batch script contains only whitespace!".to_string()
        ])
    );
    let shebang = check(b"echo hi\n").unwrap_err();
    assert_eq!(
        shebang,
        vec![
            "sbatch: error: This does not look like a batch script.  The first",
            "sbatch: error: line must start with #! followed by the path to an interpreter.",
            "sbatch: error: For instance: #!/bin/sh",
        ]
    );
    assert_eq!(
        check(b"\x7fELF\x02\x01\x01\0\0"),
        Err(shebang.clone()),
        "binaries fail the #! test"
    );
    assert_eq!(check(b" #!/bin/sh\n"), Err(shebang));
    assert_eq!(check(b"#!/bin/sh\necho \0\n").unwrap_err().len(), 2);
    assert_eq!(
        check(b"#!/bin/sh\r\necho\r\n"),
        Err(vec![
            "sbatch: error: Batch script contains DOS line breaks (\\r\\n)".to_string(),
            "sbatch: error: instead of expected UNIX line breaks (\\n).".to_string(),
        ])
    );
    assert_eq!(check(b"#!"), Ok(()));
    let e = check_script(
        &ErrCtx {
            cmd: Command::Sbatch,
            error_exit: 7,
        },
        b"",
    )
    .unwrap_err();
    assert_eq!(e.exit_code, 7);
}

#[test]
fn wrap_text() {
    assert_eq!(
        wrap_script("echo hi; hostname"),
        "#!/bin/sh\n# This script was created by sbatch --wrap.\n\necho hi; hostname\n"
    );
}

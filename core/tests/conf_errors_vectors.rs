//! Every case of `tests/vectors/conf_errors.tsv` (broken `slurm.conf` files run through the real slurmctld
//! 22.05) must fail here with the same messages Slurm logs.

use std::collections::HashMap;

use spur_core::grammar::conf::SlurmConf;

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[test]
fn slurmctld_error_texts() {
    let text = include_str!("vectors/conf_errors.tsv");
    let mut cases = 0;
    for row in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let (name, conf, includes, expected) = (cols[0], unescape(cols[1]), cols[2], cols[3]);
        let files: HashMap<String, String> = includes
            .split(" && ")
            .filter(|s| !s.is_empty())
            .map(|inc| {
                let (file, body) = inc.split_once('=').unwrap();
                (format!("/etc/slurm/{file}"), unescape(body))
            })
            .collect();
        let mut resolver = |path: &str| {
            files
                .get(path)
                .cloned()
                .ok_or_else(|| format!("no such file {path}"))
        };
        let err = SlurmConf::parse(&conf, "/etc/slurm/slurm.conf", &mut resolver)
            .expect_err(&format!("case {name} must fail"));
        let mut got: Vec<String> = err
            .errors
            .iter()
            .chain(&err.warnings)
            .map(|e| e.slurm_text())
            .collect();
        let mut want: Vec<String> = expected.split(" || ").map(str::to_string).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "case {name}");
        cases += 1;
    }
    assert_eq!(cases, 44);
}

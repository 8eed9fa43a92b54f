//! Slurm's own hostlist unit tests (transcribed into `core/tests/vectors/reference/unit_hostlist.tsv`), run
//! against the hostlist API. Where Slurm aborts on a bad index, Spur answers `None` and leaves the list alone.

use spur_core::grammar::hostlist::Hostlist;

struct Row<'a> {
    test: &'a str,
    input: &'a str,
    operation: &'a str,
    expected: &'a str,
}

fn rows() -> Vec<Row<'static>> {
    let tsv = include_str!("../vectors/reference/unit_hostlist.tsv");
    let mut lines = tsv.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(lines.next(), Some("test\tinput\toperation\texpected"));
    lines
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 4, "row {line:?}");
            Row {
                test: f[0],
                input: f[1],
                operation: f[2],
                expected: f[3],
            }
        })
        .collect()
}

/// The list a row starts from: a parsed expression (a hostset is a sorted, duplicate-free hostlist), pushed
/// names with removals (`push a1,b1; remove a1`), or the previous row's list with more removals.
fn build(row: &Row<'_>, previous: Option<Hostlist>) -> Hostlist {
    let (base, removals) = match row.input.strip_prefix("... then remove ") {
        Some(names) => (previous.expect("a row to continue from"), names),
        None => match row.input.strip_prefix("push ") {
            Some(spec) => {
                let (names, removals) = spec.split_once("; remove ").unwrap_or((spec, ""));
                (Hostlist::from_names(names.split(',')), removals)
            }
            None => {
                let mut list = Hostlist::parse(row.input).unwrap();
                if row.test.starts_with("hostset") {
                    list.uniq();
                }
                (list, "")
            }
        },
    };
    let mut list = base;
    for name in removals.split(',').filter(|n| !n.is_empty()) {
        assert!(list.remove(name), "{name} not in {list}");
    }
    list
}

fn index(operation: &str, name: &str) -> Option<i64> {
    operation
        .strip_prefix(name)?
        .strip_prefix('(')?
        .strip_suffix(')')?
        .parse()
        .ok()
}

fn check(row: &Row<'_>, list: &Hostlist) {
    let what = format!("{} {} {}", row.test, row.input, row.operation);
    if row.operation == "count" {
        assert_eq!(list.len().to_string(), row.expected, "{what}");
    } else if let Some(i) = index(row.operation, "nth") {
        match usize::try_from(i) {
            Ok(i) if !row.expected.starts_with("SIGABRT") => {
                assert_eq!(list.nth(i).as_deref(), Some(row.expected), "{what}")
            }
            // A negative index cannot be written; the closest, the largest one, finds nothing.
            _ => assert_eq!(list.nth(usize::MAX), None, "{what}"),
        }
    } else if let Some(i) = index(row.operation, "delete_nth") {
        assert!(row.expected.starts_with("SIGABRT"), "{what}");
        let mut copy = list.clone();
        assert_eq!(copy.remove_nth(usize::try_from(i).unwrap()), None, "{what}");
        assert_eq!(&copy, list, "{what}");
    } else if let Some(times) = row.operation.strip_prefix("delete_nth(0) x") {
        let counts = row.expected.rsplit_once("count ").unwrap().1;
        let mut copy = list.clone();
        let times: usize = times.parse().unwrap();
        let mut seen = Vec::new();
        for _ in 0..times {
            assert!(copy.remove_nth(0).is_some(), "{what}");
            seen.push(copy.len().to_string());
        }
        assert_eq!(seen.join(","), counts, "{what}");
    } else if row.operation == "iterate" {
        let expected = row.expected.split(' ').next().unwrap();
        let first: Vec<String> = list.iter().collect();
        let again: Vec<String> = list.iter().collect();
        assert_eq!(first.join(","), expected, "{what}");
        assert_eq!(first, again, "{what}");
    } else if row.operation == "ranged_string" {
        assert_eq!(list.to_ranged_string(), row.expected, "{what}");
    } else {
        panic!("unknown operation in {what}");
    }
}

#[test]
fn slurm_unit_test_expectations() {
    let rows = rows();
    assert_eq!(rows.len(), 17);
    let mut previous: Option<Hostlist> = None;
    for row in &rows {
        let list = build(row, previous.take());
        check(row, &list);
        previous = Some(list);
    }
}

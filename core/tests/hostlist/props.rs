//! Properties of the hostlist API on random input: parsing never panics, and compressing a list of names gives
//! an expression that expands back to them.

use proptest::prelude::*;
use spur_core::grammar::hostlist::{compress, compress_sorted, expand, Hostlist};

/// Host names as sites write them: letters, digits and dashes, no separators or brackets. Numbers stay well
/// below 2^31, where Slurm's own sort stops being reliable.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9-]{1,8}",
        "(n|node|gpu|rack[0-9]-n)[0-9]{1,3}",
        "(n|x-)0{0,2}[0-9]{1,2}",
    ]
}

fn names() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(name(), 0..24)
}

/// Runs everything a caller may run on a parsed list; none of it may panic.
fn exercise(list: &Hostlist) {
    let ranged = list.to_ranged_string();
    let sorted = list.to_sorted_ranged_string();
    let mut uniq = list.clone();
    uniq.uniq();
    if list.len() <= 5_000 {
        let hosts = list.expand();
        assert_eq!(hosts.len(), list.len());
        if let Some(last) = hosts.last() {
            assert_eq!(list.nth(hosts.len() - 1).as_ref(), Some(last));
            let first = list.find(last).unwrap();
            assert_eq!(list.nth(first).as_ref(), Some(last));
        }
    }
    assert!(ranged.len() + sorted.len() + uniq.len() < usize::MAX);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parsing_any_string_never_panics(s in any::<String>()) {
        if let Ok(list) = Hostlist::parse(&s) {
            exercise(&list);
        }
    }

    #[test]
    fn parsing_hostlist_alphabet_never_panics(s in "[a-z0-9\\[\\],\\- ]{0,40}") {
        match Hostlist::parse_with_warnings(&s) {
            Ok((list, _)) => exercise(&list),
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn compress_then_expand_gives_the_names_back(names in names()) {
        let ranged = compress(&names);
        prop_assert_eq!(expand(&ranged).unwrap(), names.clone(), "via {}", ranged);
        prop_assert_eq!(Hostlist::from_names(&names).expand(), names);
    }

    #[test]
    fn sorted_compression_keeps_every_host(names in names()) {
        let ranged = compress_sorted(&names);
        let mut back = expand(&ranged).unwrap();
        let mut expected = names.clone();
        back.sort();
        expected.sort();
        prop_assert_eq!(back, expected, "via {}", ranged);
    }

    #[test]
    fn uniq_keeps_each_host_once(names in names()) {
        let mut list = Hostlist::from_names(&names);
        list.uniq();
        let mut back = list.expand();
        let mut expected = names.clone();
        back.sort();
        expected.sort();
        expected.dedup();
        prop_assert_eq!(back, expected);
    }

    #[test]
    fn removing_a_host_removes_exactly_one(names in names(), pick in any::<prop::sample::Index>()) {
        prop_assume!(!names.is_empty());
        let victim = &names[pick.index(names.len())];
        let mut list = Hostlist::from_names(&names);
        prop_assert!(list.remove(victim));
        let mut expected = names.clone();
        let at = expected.iter().position(|n| n == victim).unwrap();
        expected.remove(at);
        prop_assert_eq!(list.expand(), expected);
    }
}

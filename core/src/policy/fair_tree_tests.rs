use super::*;
use crate::model::assoc::{AcctRequest, AssocSet};
use crate::policy::fairshare::FairShareUsage;

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn shares_set(shares: u32) -> AssocSet {
    AssocSet {
        shares: Some(shares),
        ..Default::default()
    }
}

fn add_account(db: &mut AcctDb, name: &str, parent: Option<&str>, shares: u32) {
    db.apply(&AcctRequest::AddAccounts {
        names: names(&[name]),
        parent: parent.map(str::to_string),
        description: None,
        organization: None,
        set: shares_set(shares),
    })
    .unwrap();
}

fn add_user(db: &mut AcctDb, name: &str, account: &str, shares: u32) {
    db.apply(&AcctRequest::add_user(name, account, shares_set(shares)))
        .unwrap();
}

fn usage(pairs: &[(&str, f64)]) -> FairShareUsage {
    FairShareUsage {
        last_calc: Some(0),
        raw: pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
    }
}

fn row<'a>(rows: &'a [AssocShare], key: &str) -> &'a AssocShare {
    rows.iter().find(|r| r.key == key).unwrap()
}

fn factor(rows: &[AssocShare], key: &str) -> f64 {
    row(rows, key).fairshare.unwrap()
}

/// The tree of the sshare example in docs: root{root user 1, fa 10 {u1 2, fc 5 {u3 7}}, fb 30 {u2 1}}.
fn example() -> AcctDb {
    let mut db = AcctDb::initial("c");
    add_account(&mut db, "fa", None, 10);
    add_account(&mut db, "fb", None, 30);
    add_account(&mut db, "fc", Some("fa"), 5);
    add_user(&mut db, "u1", "fa", 2);
    add_user(&mut db, "u2", "fb", 1);
    add_user(&mut db, "u3", "fc", 7);
    db
}

#[test]
fn without_usage_every_user_ranks_first() {
    let rows = shares(&example(), &FairShareUsage::default(), true);
    let order: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(
        order,
        [
            "root",
            "root|root",
            "fa",
            "fa|u1",
            "fc",
            "fc|u3",
            "fb",
            "fb|u2"
        ]
    );
    for user in ["root|root", "fa|u1", "fc|u3", "fb|u2"] {
        assert_eq!(factor(&rows, user), 1.0, "{user}");
        assert_eq!(row(&rows, user).level_fs, Some(f64::INFINITY));
    }
    // Shares over the siblings' (as real sshare printed them): root 1/41, fa 10/41, u1 2/7, fc 5/7.
    assert!((row(&rows, "root|root").norm_shares - 1.0 / 41.0).abs() < 1e-12);
    assert!((row(&rows, "fa").norm_shares - 10.0 / 41.0).abs() < 1e-12);
    assert!((row(&rows, "fa|u1").norm_shares - 2.0 / 7.0).abs() < 1e-12);
    assert!((row(&rows, "fc").norm_shares - 5.0 / 7.0).abs() < 1e-12);
    let root = row(&rows, "root");
    assert_eq!(
        (root.raw_shares, root.norm_shares, root.effective_usage),
        (None, 0.0, 1.0)
    );
    assert_eq!(root.depth, 0);
    assert_eq!(row(&rows, "fc|u3").depth, 3);
}

#[test]
fn the_only_user_with_usage_ranks_last() {
    // As real Slurm showed after root's job ran 67 CPU-seconds: root's user alone has usage, so it ranks last
    // (rank 1 of 4 users) with LF = (1/41) / 1.
    let u = usage(&[("root", 67.0), ("root|root", 67.0)]);
    let rows = shares(&example(), &u, true);
    assert_eq!(factor(&rows, "root|root"), 0.25);
    let lf = row(&rows, "root|root").level_fs.unwrap();
    assert!((lf - 1.0 / 41.0).abs() < 1e-12, "S / U = (1/41) / 1");
    assert_eq!(row(&rows, "root|root").effective_usage, 1.0);
    for user in ["fa|u1", "fc|u3", "fb|u2"] {
        assert_eq!(factor(&rows, user), 1.0, "{user}");
    }
}

#[test]
fn accounts_rank_by_level_fairshare_then_their_users() {
    // fa (10/41 of the shares) used 30 of 100: LF = (10/41)/0.3 = 0.813; fb (30/41) used 70: LF = 1.045;
    // root's user used nothing: infinite. Order: root|root, fb's users, fa's subtree.
    let u = usage(&[
        ("root", 100.0),
        ("fa", 30.0),
        ("fa|u1", 10.0),
        ("fc", 20.0),
        ("fc|u3", 20.0),
        ("fb", 70.0),
        ("fb|u2", 70.0),
    ]);
    let rows = shares(&example(), &u, true);
    assert_eq!(factor(&rows, "root|root"), 1.0);
    assert_eq!(factor(&rows, "fb|u2"), 0.75);
    // Inside fa: u1 LF = (2/7)/(10/30) = 0.857, fc LF = (5/7)/(20/30) = 1.071: fc's user first.
    assert_eq!(factor(&rows, "fc|u3"), 0.5);
    assert_eq!(factor(&rows, "fa|u1"), 0.25);
    let fa = row(&rows, "fa");
    assert!((fa.level_fs.unwrap() - (10.0 / 41.0) / 0.3).abs() < 1e-12);
    assert!((fa.effective_usage - 0.3).abs() < 1e-12);
    assert!((row(&rows, "fc|u3").norm_usage - 0.2).abs() < 1e-12);
}

#[test]
fn tied_users_share_a_rank_and_the_next_skips_it() {
    let mut db = AcctDb::initial("c");
    add_account(&mut db, "a", None, 1);
    for user in ["w", "x", "y", "z"] {
        add_user(&mut db, user, "a", 1);
    }
    // root|root idle: infinite; x and y equal; w less; z most.
    let u = usage(&[
        ("root", 100.0),
        ("a", 100.0),
        ("a|w", 10.0),
        ("a|x", 20.0),
        ("a|y", 20.0),
        ("a|z", 50.0),
    ]);
    let rows = shares(&db, &u, true);
    // 5 users: root|root rank 5; in a: w 4, x and y both 3, z 1 (rank 2 is skipped).
    assert_eq!(factor(&rows, "root|root"), 1.0);
    assert_eq!(factor(&rows, "a|w"), 0.8);
    assert_eq!(factor(&rows, "a|x"), 0.6);
    assert_eq!(factor(&rows, "a|y"), 0.6);
    assert_eq!(factor(&rows, "a|z"), 0.2);
}

#[test]
fn tied_accounts_rank_their_children_together() {
    let mut db = AcctDb::initial("c");
    db.apply(&AcctRequest::ModifyUsers {
        names: names(&["root"]),
        accounts: Vec::new(),
        set: shares_set(0),
        default_account: None,
        admin: None,
    })
    .unwrap();
    add_account(&mut db, "a", None, 1);
    add_account(&mut db, "b", None, 1);
    add_user(&mut db, "a1", "a", 1);
    add_user(&mut db, "a2", "a", 1);
    add_user(&mut db, "b1", "b", 1);
    // a and b used the same: tied. Merged children: a1 (LF (1/2)/(10/50)=2.5), b1 ((1/1)/1 = 1),
    // a2 ((1/2)/(40/50) = 0.625).
    let u = usage(&[
        ("root", 100.0),
        ("a", 50.0),
        ("a|a1", 10.0),
        ("a|a2", 40.0),
        ("b", 50.0),
        ("b|b1", 50.0),
    ]);
    let rows = shares(&db, &u, true);
    let users = 4.0;
    assert_eq!(factor(&rows, "a|a1"), 4.0 / users);
    assert_eq!(factor(&rows, "b|b1"), 3.0 / users);
    assert_eq!(factor(&rows, "a|a2"), 2.0 / users);
}

#[test]
fn a_user_without_shares_ranks_below_its_siblings() {
    let mut db = example();
    add_user(&mut db, "zero", "fb", 0);
    let rows = shares(&db, &FairShareUsage::default(), true);
    assert_eq!(row(&rows, "fb|zero").level_fs, Some(0.0));
    // 5 users: everyone else tied at infinity with rank 5; zero is last with rank 1.
    assert_eq!(factor(&rows, "fb|zero"), 0.2);
    assert_eq!(factor(&rows, "fb|u2"), 1.0);
}

#[test]
fn classic_factor_halves_when_usage_equals_shares() {
    let mut db = AcctDb::initial("c");
    add_account(&mut db, "a", None, 1);
    add_account(&mut db, "b", None, 1);
    add_user(&mut db, "u", "a", 1);
    add_user(&mut db, "v", "b", 1);
    // root's user has 1 share of 3 at the top. a: 1/3, u: 1/3 × 1 = 1/3. u used 1/3 of everything.
    let u = usage(&[("root", 3.0), ("a", 1.0), ("a|u", 1.0)]);
    let rows = shares(&db, &u, false);
    let ue_u = 1.0 / 3.0 + (1.0 / 3.0 - 1.0 / 3.0) * 1.0;
    assert!((row(&rows, "a|u").effective_usage - ue_u).abs() < 1e-12);
    assert!((factor(&rows, "a|u") - 0.5).abs() < 1e-12, "2^-(1/3 / 1/3)");
    assert_eq!(factor(&rows, "b|v"), 1.0);
    assert_eq!(row(&rows, "a|u").level_fs, None);
}

#[test]
fn the_table_finds_a_jobs_association() {
    let mut db = example();
    db.apply(&AcctRequest::AddUsers {
        names: names(&["u1"]),
        accounts: names(&["fb"]),
        partitions: names(&["gpu"]),
        default_account: None,
        admin: None,
        set: AssocSet::default(),
    })
    .unwrap();
    let u = usage(&[("root", 10.0), ("fa", 10.0), ("fa|u1", 10.0)]);
    let table = FactorTable::new(&db, &u, true);
    let rows = shares(&db, &u, true);
    // u1's default account is fa (its first).
    assert_eq!(
        table.factor(&db, "u1", None, "debug"),
        factor(&rows, "fa|u1")
    );
    assert!(table.factor(&db, "u1", None, "debug") < 1.0);
    assert_eq!(
        table.factor(&db, "u1", Some("fb"), "gpu"),
        factor(&rows, "fb|u1|gpu")
    );
    assert_eq!(
        table.factor(&db, "u1", Some("fb"), "debug"),
        0.0,
        "no association there"
    );
    assert_eq!(table.factor(&db, "nobody", None, "debug"), 0.0);
}

#[test]
fn real_slurms_ranking_after_three_jobs() {
    // Real Slurm 22.05 (sshare -a -l) after root ran 2 CPUs and spurfs1 (in fa) and spurfs2 (in fb) 1 CPU each
    // for about 100 s: FairShare root 1/7, spurfs1 2/7, u1 and u3 5/7, spurfs2 6/7, u2 1; LevelFS root's user
    // 0.048783, fa 0.975566, fb 2.926698, spurfs1 0.125, spurfs2 0.5. (Its u4 had Fairshare=parent, which Spur
    // does not take: u4's place is left empty here, so the ranks are those of 7 users less one.)
    let mut db = example();
    add_user(&mut db, "spurfs1", "fa", 1);
    add_user(&mut db, "spurfs2", "fb", 1);
    // Usage as fractions of root's, as its EffectvUsage column showed them.
    let u = usage(&[
        ("root", 1.0),
        ("root|root", 0.499978),
        ("fa", 0.250011),
        ("fa|spurfs1", 0.250011),
        ("fb", 0.250011),
        ("fb|spurfs2", 0.250011),
    ]);
    let rows = shares(&db, &u, true);
    let lf = |key: &str| row(&rows, key).level_fs.unwrap();
    for (key, slurm) in [
        ("root|root", 0.048783),
        ("fa", 0.975566),
        ("fb", 2.926698),
        ("fa|spurfs1", 0.125),
        ("fb|spurfs2", 0.5),
    ] {
        assert!((lf(key) / slurm - 1.0).abs() < 1e-5, "{key}: {}", lf(key));
    }
    // 6 users: fb's u2 6, spurfs2 5; fa's u1 4 and fc's u3 tied with it (fc unused, infinite like u1) 4;
    // spurfs1 2; root's user 1.
    let f = |key: &str| format!("{:.6}", factor(&rows, key) * 6.0);
    assert_eq!(f("fb|u2"), "6.000000");
    assert_eq!(f("fb|spurfs2"), "5.000000");
    assert_eq!(f("fa|u1"), "4.000000");
    assert_eq!(f("fc|u3"), "4.000000");
    assert_eq!(f("fa|spurfs1"), "2.000000");
    assert_eq!(f("root|root"), "1.000000");
}

#[test]
fn classic_matches_real_slurm() {
    // Real Slurm 22.05 with PriorityFlags=NO_FAIR_TREE (sshare -a -l -P) while spurfs1 (in fc, under fa) and
    // spurfs2 (in fb) each ran one CPU: half of the usage each.
    let mut db = AcctDb::initial("c");
    add_account(&mut db, "fa", None, 10);
    add_account(&mut db, "fb", None, 30);
    add_account(&mut db, "fc", Some("fa"), 5);
    add_user(&mut db, "u1", "fa", 2);
    add_user(&mut db, "spurfs1", "fc", 3);
    add_user(&mut db, "u3", "fc", 7);
    add_user(&mut db, "spurfs2", "fb", 1);
    let u = usage(&[
        ("root", 2.0),
        ("fa", 1.0),
        ("fc", 1.0),
        ("fc|spurfs1", 1.0),
        ("fb", 1.0),
        ("fb|spurfs2", 1.0),
    ]);
    let rows = shares(&db, &u, false);
    let shown = |key: &str| {
        let r = row(&rows, key);
        format!(
            "{:.6}|{:.6}|{:.6}|{:.6}",
            r.norm_shares,
            r.norm_usage,
            r.effective_usage,
            r.fairshare.unwrap()
        )
    };
    assert_eq!(shown("root"), "1.000000|1.000000|1.000000|0.500000");
    assert_eq!(shown("root|root"), "0.024390|0.000000|0.000000|1.000000");
    assert_eq!(shown("fa"), "0.243902|0.500000|0.500000|0.241484");
    assert_eq!(shown("fa|u1"), "0.069686|0.000000|0.142857|0.241484");
    assert_eq!(shown("fc"), "0.174216|0.500000|0.500000|0.136787");
    assert_eq!(shown("fc|spurfs1"), "0.052265|0.500000|0.500000|0.001319");
    assert_eq!(shown("fc|u3"), "0.121951|0.000000|0.350000|0.136787");
    assert_eq!(shown("fb"), "0.731707|0.500000|0.500000|0.622725");
    assert_eq!(shown("fb|spurfs2"), "0.731707|0.500000|0.500000|0.622725");
}

#[test]
fn tree_order_is_sacctmgrs() {
    let mut db = example();
    add_user(&mut db, "a0", "fc", 1);
    add_account(&mut db, "fd", Some("fa"), 1);
    add_account(&mut db, "aa", Some("fa"), 1);
    add_user(&mut db, "zz", "aa", 1);
    db.apply(&AcctRequest::AddUsers {
        names: names(&["u1"]),
        accounts: names(&["fa"]),
        partitions: names(&["gpu"]),
        default_account: None,
        admin: None,
        set: AssocSet::default(),
    })
    .unwrap();
    let fast: Vec<&crate::model::assoc::Association> = super::tree_order(&db);
    assert_eq!(fast, db.tree_order());
}

#[test]
fn a_large_tree_is_ranked_quickly() {
    // 100 accounts of 50 users each, every user with some usage: one pass's table.
    let mut db = AcctDb::initial("c");
    let mut pairs = Vec::new();
    for a in 0..100 {
        let account = format!("a{a}");
        add_account(&mut db, &account, None, 1 + a % 7);
        let users: Vec<String> = (0..50).map(|u| format!("u{a}x{u}")).collect();
        db.apply(&AcctRequest::AddUsers {
            names: users.clone(),
            accounts: vec![account.clone()],
            partitions: Vec::new(),
            default_account: None,
            admin: None,
            set: AssocSet::default(),
        })
        .unwrap();
        for (i, user) in users.iter().enumerate() {
            pairs.push((format!("{account}|{user}"), (i + a as usize) as f64));
        }
        pairs.push((account, 1000.0));
    }
    pairs.push(("root".to_string(), 200_000.0));
    let u = FairShareUsage {
        last_calc: Some(0),
        raw: pairs.into_iter().collect(),
    };
    let started = std::time::Instant::now();
    let table = FactorTable::new(&db, &u, true);
    let spent = started.elapsed();
    assert!(table.factor(&db, "u3x7", Some("a3"), "p") > 0.0);
    // Generous for a debug build on a loaded machine; the point is no quadratic walk.
    assert!(spent < std::time::Duration::from_secs(2), "{spent:?}");
}

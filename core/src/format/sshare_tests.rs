use super::*;
use crate::model::assoc::{AcctDb, AcctRequest, AssocSet};
use crate::policy::fair_tree::shares;
use crate::policy::fairshare::FairShareUsage;

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The tree the real sshare outputs below came from: fa 10 {u1 2, fc 5 {u3 7}}, fb 30 {u2 1}.
fn db() -> AcctDb {
    let mut db = AcctDb::initial("refcluster");
    for (name, parent, shares) in [("fa", None, 10), ("fb", None, 30), ("fc", Some("fa"), 5)] {
        db.apply(&AcctRequest::AddAccounts {
            names: names(&[name]),
            parent: parent.map(str::to_string),
            description: None,
            organization: None,
            set: AssocSet {
                shares: Some(shares),
                ..Default::default()
            },
        })
        .unwrap();
    }
    for (user, account, shares) in [("u1", "fa", 2), ("u2", "fb", 1), ("u3", "fc", 7)] {
        db.apply(&AcctRequest::add_user(
            user,
            account,
            AssocSet {
                shares: Some(shares),
                ..Default::default()
            },
        ))
        .unwrap();
    }
    db
}

fn options() -> SshareOptions {
    SshareOptions {
        caller: "root".into(),
        cluster: "refcluster".into(),
        ..Default::default()
    }
}

fn out(options: &SshareOptions, columns: Option<&str>) -> String {
    let rows = shares(&db(), &FairShareUsage::default(), true);
    let columns = match columns {
        Some(text) => parse_format(text).unwrap(),
        None => default_columns(options),
    };
    render(&rows, &BTreeMap::new(), &columns, options)
}

#[test]
fn all_users_as_real_sshare_prints_them() {
    let all = SshareOptions {
        all: true,
        ..options()
    };
    let expected = "\
Account                    User  RawShares  NormShares    RawUsage  EffectvUsage  FairShare 
-------------------- ---------- ---------- ----------- ----------- ------------- ---------- 
root                                          0.000000           0      1.000000            
 root                      root          1    0.024390           0      0.000000   1.000000 
 fa                                     10    0.243902           0      0.000000            
  fa                         u1          2    0.285714           0      0.000000   1.000000 
  fc                                     5    0.714286           0      0.000000            
   fc                        u3          7    1.000000           0      0.000000   1.000000 
 fb                                     30    0.731707           0      0.000000            
  fb                         u2          1    1.000000           0      0.000000   1.000000 
";
    assert_eq!(out(&all, None), expected);
}

#[test]
fn long_parsable_as_real_sshare_prints_it() {
    let long = SshareOptions {
        all: true,
        long: true,
        layout: Layout::Parsable2,
        ..options()
    };
    let tres = "cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0";
    let text = out(&long, None);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|GrpTRESMins|TRESRunMins"
    );
    assert_eq!(lines[1], format!("root|||0.000000|0||1.000000||||{tres}"));
    assert_eq!(
        lines[2],
        format!(" root|root|1|0.024390|0|0.000000|0.000000|1.000000|inf||{tres}")
    );
    assert_eq!(
        lines[3],
        format!(" fa||10|0.243902|0|0.000000|0.000000||inf||{tres}")
    );
    assert_eq!(lines.len(), 9);
}

#[test]
fn without_all_only_the_callers_users_and_every_account() {
    let text = out(&options(), None);
    let accounts: Vec<&str> = text.lines().skip(2).map(|l| &l[..21]).collect();
    assert_eq!(
        accounts,
        [
            "root                 ",
            " root                ",
            " fa                  ",
            "  fc                 ",
            " fb                  "
        ]
    );
    let only_u1 = SshareOptions {
        users: Some(names(&["u1"])),
        ..options()
    };
    assert!(out(&only_u1, None).contains("  fa                         u1"));
}

#[test]
fn chosen_accounts_are_indented_from_the_shallowest() {
    // Real sshare: `-A fa,fc -a` starts at fa with no indentation.
    let chosen = SshareOptions {
        all: true,
        accounts: Some(names(&["fa", "fc"])),
        noheader: true,
        ..options()
    };
    let text = out(&chosen, Some("Account,User"));
    let line = |account: &str, user: &str| format!("{account:<20} {user:>10} \n");
    assert_eq!(
        text,
        [
            line("fa", ""),
            line(" fa", "u1"),
            line(" fc", ""),
            line("  fc", "u3")
        ]
        .concat()
    );
}

#[test]
fn users_only_parsable_with_a_trailing_delimiter() {
    let users = SshareOptions {
        users_only: true,
        users: Some(names(&["u2"])),
        layout: Layout::Parsable,
        ..options()
    };
    assert_eq!(
        out(&users, None),
        "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare|\nfb|u2|1|1.000000|0|0.000000|1.000000|\n"
    );
}

#[test]
fn formats_shorten_names_take_widths_and_refuse_unknown_fields() {
    let columns = parse_format("acc%-8,RawU,FairS%4,user").unwrap();
    let names: Vec<&str> = columns.iter().map(|c| c.name).collect();
    assert_eq!(names, ["Account", "RawUsage", "FairShare", "User"]);
    assert_eq!(columns[0].width, -8);
    assert_eq!(columns[2].width, 4);
    assert_eq!(
        parse_format("Account,bogus").unwrap_err(),
        "Invalid field requested: \"bogus\""
    );
    // A number wider than its column is printed as C's %e, as real sshare does.
    assert_eq!(double(1.0 / 7.0, Some(4)), "1.428571e-01");
    assert_eq!(double(1.0 / 7.0, Some(10)), "0.142857");
    assert_eq!(double(f64::INFINITY, Some(2)), "inf");
}

#[test]
fn partition_column_and_help() {
    let m = SshareOptions {
        partition: true,
        ..options()
    };
    assert!(out(&m, None).starts_with("Account                    User    Partition  RawShares"));
    let help = help_format();
    assert_eq!(
        help.lines().next(),
        Some("Account           Cluster           EffectvUsage      FairShare        ")
    );
    assert_eq!(
        help.lines().last(),
        Some("RawUsage          TRESRunMins       User             ")
    );
}

#[test]
fn running_jobs_show_in_tres_run_mins() {
    let rows = shares(&db(), &FairShareUsage::default(), true);
    let mut run = BTreeMap::new();
    run.insert("fb|u2".to_string(), TresRunMins::of(2, 100, 1, 10));
    let columns = parse_format("User,TRESRunMins").unwrap();
    let p = SshareOptions {
        users_only: true,
        all: true,
        layout: Layout::Parsable2,
        noheader: true,
        ..options()
    };
    let text = render(&rows, &run, &columns, &p);
    assert!(
        text.contains("u2|cpu=20,mem=1000,energy=0,node=10,billing=20,fs/disk=0,vmem=0,pages=0\n")
    );
}

#[test]
fn classic_long_has_no_level_fs_and_accounts_have_factors() {
    let classic = SshareOptions {
        long: true,
        classic: true,
        all: true,
        ..options()
    };
    let rows = shares(&db(), &FairShareUsage::default(), false);
    let text = render(
        &rows,
        &BTreeMap::new(),
        &default_columns(&classic),
        &classic,
    );
    // Real sshare under NO_FAIR_TREE.
    assert_eq!(
        text.lines().next(),
        Some("Account                    User  RawShares  NormShares    RawUsage   NormUsage  EffectvUsage  FairShare                    GrpTRESMins                    TRESRunMins ")
    );
    assert_eq!(
        text.lines().nth(2),
        Some("root                                          1.000000           0                  1.000000   0.500000                                cpu=0,mem=0,energy=0,node=0,b+ ")
    );
}

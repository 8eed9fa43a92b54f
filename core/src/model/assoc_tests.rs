use super::*;

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn db() -> AcctDb {
    AcctDb::initial("c1")
}

#[test]
fn a_new_cluster_has_normal_root_and_root_user() {
    let d = db();
    assert_eq!(d.qos.len(), 1);
    assert_eq!(d.qos[0].name, "normal");
    assert_eq!(d.qos[0].id, 1);
    assert_eq!(d.users["root"].admin, AdminLevel::Administrator);
    let order: Vec<(String, Option<String>)> = d
        .tree_order()
        .iter()
        .map(|a| (a.account.clone(), a.user.clone()))
        .collect();
    assert_eq!(
        order,
        vec![("root".into(), None), ("root".into(), Some("root".into()))]
    );
}

#[test]
fn qos_add_modify_delete_as_sacctmgr() {
    let mut d = db();
    let set = QosSet {
        priority: Some(100),
        preempt: Some(ListEdit::Set(names(&["normal"]))),
        ..Default::default()
    };
    let change = d
        .apply(&AcctRequest::AddQos {
            names: names(&["high"]),
            set: set.clone(),
        })
        .unwrap();
    assert_eq!(change.names, names(&["high"]));
    assert_eq!(
        d.apply(&AcctRequest::AddQos {
            names: names(&["high"]),
            set
        }),
        Err(AcctError::NothingAdded)
    );
    let bad = QosSet {
        preempt: Some(ListEdit::Set(names(&["nosuch"]))),
        ..Default::default()
    };
    let before = d.clone();
    assert_eq!(
        d.apply(&AcctRequest::ModifyQos {
            names: names(&["high"]),
            set: bad
        }),
        Err(AcctError::BadQos {
            name: "nosuch".into(),
            valid: names(&["normal", "high"])
        })
    );
    assert_eq!(d, before, "a refused request changes nothing");
    d.apply(&AcctRequest::AddQos {
        names: names(&["low"]),
        set: QosSet::default(),
    })
    .unwrap();
    let all = d
        .apply(&AcctRequest::ModifyQos {
            names: Vec::new(),
            set: QosSet {
                grace_time_secs: Some(30),
                ..Default::default()
            },
        })
        .unwrap();
    assert_eq!(all.names, names(&["normal", "high", "low"]));
    d.apply(&AcctRequest::ModifyQos {
        names: names(&["high"]),
        set: QosSet {
            preempt: Some(ListEdit::Add(names(&["low"]))),
            ..Default::default()
        },
    })
    .unwrap();
    assert_eq!(d.qos("high").unwrap().preempt, names(&["low", "normal"]));
    d.apply(&AcctRequest::DeleteQos {
        names: names(&["low"]),
    })
    .unwrap();
    assert_eq!(d.qos("high").unwrap().preempt, names(&["normal"]));
    assert_eq!(
        d.apply(&AcctRequest::DeleteQos {
            names: names(&["low"])
        }),
        Err(AcctError::NothingDeleted)
    );
    assert_eq!(d.max_qos_priority(), 100);
}

fn add_account(d: &mut AcctDb, name: &str, parent: Option<&str>) -> Result<AcctChange, AcctError> {
    d.apply(&AcctRequest::AddAccounts {
        names: names(&[name]),
        parent: parent.map(str::to_string),
        description: None,
        organization: None,
        set: AssocSet::default(),
    })
}

fn add_user(
    d: &mut AcctDb,
    name: &str,
    accounts: &[&str],
    set: AssocSet,
) -> Result<AcctChange, AcctError> {
    d.apply(&AcctRequest::AddUsers {
        names: names(&[name]),
        accounts: names(accounts),
        partitions: Vec::new(),
        default_account: None,
        admin: None,
        set,
    })
}

#[test]
fn accounts_and_users_form_slurms_tree() {
    let mut d = db();
    add_account(&mut d, "acct1", None).unwrap();
    add_account(&mut d, "acct2", Some("acct1")).unwrap();
    assert_eq!(d.accounts["acct2"].organization, "acct1");
    assert_eq!(d.accounts["acct2"].description, "acct2");
    assert_eq!(
        add_account(&mut d, "acct3", Some("nosuch")),
        Err(AcctError::ParentMissing {
            parent: "nosuch".into()
        })
    );
    add_user(&mut d, "bob", &["acct2", "acct1"], AssocSet::default()).unwrap();
    add_user(&mut d, "alice", &["acct1"], AssocSet::default()).unwrap();
    assert_eq!(
        add_user(&mut d, "dave", &["nosuch"], AssocSet::default()),
        Err(AcctError::AccountMissing {
            account: "nosuch".into()
        })
    );
    let order: Vec<String> = d
        .tree_order()
        .iter()
        .map(|a| format!("{}/{}", a.account, a.user.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        order,
        names(&[
            "root/",
            "root/root",
            "acct1/",
            "acct1/alice",
            "acct1/bob",
            "acct2/",
            "acct2/bob"
        ])
    );
    assert_eq!(d.users["bob"].default_account, "acct2");
    assert_eq!(
        d.user_assoc("bob", "acct1", None).unwrap().qos,
        names(&["normal"])
    );
    // Deleting acct1 drops the associations of its whole subtree (as slurmdbd); acct2 and the users stay.
    d.apply(&AcctRequest::DeleteAccounts {
        names: names(&["acct1"]),
    })
    .unwrap();
    assert!(d.users.contains_key("alice"));
    assert!(d.accounts.contains_key("acct2"));
    assert_eq!(
        d.tree_order()
            .iter()
            .map(|a| a.account.as_str())
            .collect::<Vec<_>>(),
        vec!["root", "root"]
    );
    assert_eq!(
        d.apply(&AcctRequest::DeleteAccounts {
            names: names(&["root"])
        }),
        Err(AcctError::RootAccount)
    );
}

#[test]
fn user_modifications_touch_their_associations() {
    let mut d = db();
    d.apply(&AcctRequest::AddQos {
        names: names(&["high"]),
        set: QosSet::default(),
    })
    .unwrap();
    add_account(&mut d, "a", None).unwrap();
    add_account(&mut d, "b", None).unwrap();
    add_user(&mut d, "u", &["a"], AssocSet::default()).unwrap();
    assert_eq!(
        d.apply(&AcctRequest::ModifyUsers {
            names: names(&["u"]),
            accounts: Vec::new(),
            default_account: Some("b".into()),
            admin: None,
            set: AssocSet::default(),
        }),
        Err(AcctError::NotAssociatedWithDefault {
            account: "b".into(),
            users: names(&["u"])
        })
    );
    let change = d
        .apply(&AcctRequest::ModifyUsers {
            names: names(&["u"]),
            accounts: Vec::new(),
            default_account: None,
            admin: None,
            set: AssocSet {
                qos: Some(ListEdit::Add(names(&["high"]))),
                default_qos: Some(Some("high".into())),
                shares: Some(10),
                ..Default::default()
            },
        })
        .unwrap();
    assert_eq!(
        change.assocs,
        vec![("a".to_string(), Some("u".to_string()))]
    );
    let a = d.user_assoc("u", "a", None).unwrap();
    assert_eq!(a.qos, names(&["high", "normal"]));
    assert_eq!(a.default_qos.as_deref(), Some("high"));
    assert_eq!(a.shares, 10);
    // A default the association may not use refuses the whole change.
    let before = d.clone();
    let refused = d
        .apply(&AcctRequest::ModifyUsers {
            names: names(&["u"]),
            accounts: Vec::new(),
            default_account: None,
            admin: None,
            set: AssocSet {
                qos: Some(ListEdit::Set(names(&["high"]))),
                default_qos: Some(Some("normal".into())),
                ..Default::default()
            },
        })
        .unwrap_err();
    assert_eq!(
        refused,
        AcctError::DefaultQosNotAllowed {
            rows: vec![("normal".to_string(), "a".to_string(), "u".to_string())]
        }
    );
    assert_eq!(d, before);
    d.apply(&AcctRequest::DeleteUsers {
        names: names(&["u"]),
        accounts: Vec::new(),
    })
    .unwrap();
    assert!(!d.users.contains_key("u"));
    assert_eq!(
        d.apply(&AcctRequest::DeleteUsers {
            names: names(&["u"]),
            accounts: Vec::new()
        }),
        Err(AcctError::NothingDeleted)
    );
}

#[test]
fn the_database_travels_as_json_and_old_state_reads_empty() {
    let d = db();
    let json = serde_json::to_string(&d).unwrap();
    assert_eq!(serde_json::from_str::<AcctDb>(&json).unwrap(), d);
    assert_eq!(
        serde_json::from_str::<AcctDb>("{}").unwrap(),
        AcctDb::default()
    );
}

fn modify_account(d: &mut AcctDb, name: &str, set: AssocSet) {
    d.apply(&AcctRequest::ModifyAccounts {
        names: names(&[name]),
        description: None,
        organization: None,
        set,
    })
    .unwrap();
}

fn tres(text: &str) -> AssocSet {
    AssocSet {
        grp_tres: Some(Some(text.to_string())),
        ..Default::default()
    }
}

#[test]
fn tres_limits_are_edited_tres_by_tres() {
    let mut d = db();
    add_account(&mut d, "proj", None).unwrap();
    let grp = |d: &AcctDb| d.account_assoc("proj").unwrap().limits.grp_tres.clone();
    modify_account(&mut d, "proj", tres("node=4,cpu=8"));
    assert_eq!(grp(&d).as_deref(), Some("cpu=8,node=4"));
    // A TRES named again replaces its value, the others stay; -1 drops one.
    modify_account(&mut d, "proj", tres("cpu=-1,gres/gpu=2,node=2"));
    assert_eq!(grp(&d).as_deref(), Some("node=2,gres/gpu=2"));
    // Memory in the largest unit that holds it exactly, in slurmdbd's TRES order.
    modify_account(&mut d, "proj", tres("mem=1500,node=-1"));
    assert_eq!(grp(&d).as_deref(), Some("mem=1500M,gres/gpu=2"));
    modify_account(&mut d, "proj", tres("mem=2048"));
    assert_eq!(grp(&d).as_deref(), Some("mem=2G,gres/gpu=2"));
    modify_account(&mut d, "proj", tres("mem=-1,gres/gpu=-1"));
    assert_eq!(grp(&d), None);
}

#[test]
fn max_limits_come_down_from_the_nearest_account_that_sets_them() {
    let mut d = db();
    add_account(&mut d, "proj", None).unwrap();
    add_account(&mut d, "team", Some("proj")).unwrap();
    add_user(&mut d, "alice", &["team"], AssocSet::default()).unwrap();
    modify_account(
        &mut d,
        "proj",
        AssocSet {
            max_wall_min: Some(Some(5)),
            max_tres: Some(Some("cpu=1,node=2".into())),
            ..Default::default()
        },
    );
    modify_account(
        &mut d,
        "team",
        AssocSet {
            max_tres: Some(Some("cpu=4".into())),
            ..Default::default()
        },
    );
    let alice = d.user_assoc("alice", "team", None).unwrap().clone();
    assert_eq!(d.inherited_max(&alice, |l| l.max_wall_min), Some(5));
    assert_eq!(d.inherited_max(&alice, |l| l.max_jobs), None);
    // TRES by TRES: the CPU limit of team, the node limit of proj.
    assert_eq!(
        d.inherited_max_tres(&alice, |l| l.max_tres.as_deref())
            .as_deref(),
        Some("cpu=4,node=2")
    );
    let chain: Vec<&str> = d
        .account_chain("team")
        .map(|a| a.account.as_str())
        .collect();
    assert_eq!(chain, ["team", "proj", "root"]);
}

#[test]
fn a_cleared_limit_survives_the_trip_to_the_controller() {
    // sacctmgr's `GrpJobs=-1` travels (and is logged) as JSON; it must not arrive as "leave alone".
    let request = AcctRequest::ModifyAccounts {
        names: names(&["proj"]),
        description: None,
        organization: None,
        set: AssocSet {
            grp_jobs: Some(None),
            max_wall_min: Some(Some(5)),
            ..Default::default()
        },
    };
    let json = serde_json::to_string(&request).unwrap();
    assert_eq!(serde_json::from_str::<AcctRequest>(&json).unwrap(), request);
}

#[test]
fn the_index_finds_what_the_database_finds() {
    let mut d = db();
    add_account(&mut d, "proj", None).unwrap();
    add_account(&mut d, "team", Some("proj")).unwrap();
    add_user(&mut d, "alice", &["team", "proj"], AssocSet::default()).unwrap();
    d.apply(&AcctRequest::AddUsers {
        names: names(&["alice"]),
        accounts: names(&["team"]),
        partitions: names(&["gpu"]),
        default_account: None,
        admin: None,
        set: AssocSet {
            max_jobs: Some(Some(2)),
            ..Default::default()
        },
    })
    .unwrap();
    modify_account(
        &mut d,
        "proj",
        AssocSet {
            max_tres: Some(Some("cpu=4".into())),
            max_wall_min: Some(Some(30)),
            ..Default::default()
        },
    );
    let index = AcctIndex::new(&d);
    for (user, account, partition) in [
        ("alice", "team", Some("gpu")),
        ("alice", "team", Some("cpu")),
        ("alice", "team", None),
        ("alice", "proj", Some("gpu")),
        ("bob", "team", None),
        ("alice", "nowhere", None),
    ] {
        let from_db = d.user_assoc(user, account, partition);
        assert_eq!(
            index.user_assoc(user, account, partition),
            from_db,
            "{user} {account} {partition:?}"
        );
        if let Some(assoc) = from_db {
            assert_eq!(
                index.inherited_max(assoc, |l| l.max_wall_min),
                d.inherited_max(assoc, |l| l.max_wall_min)
            );
            assert_eq!(
                index.inherited_max_tres(assoc, |l| l.max_tres.as_deref()),
                d.inherited_max_tres(assoc, |l| l.max_tres.as_deref())
            );
        }
    }
    let names_of = |chain: Vec<&Association>| -> Vec<String> {
        chain.iter().map(|a| a.account.clone()).collect()
    };
    assert_eq!(
        names_of(index.chain("team").collect()),
        names_of(d.account_chain("team").collect())
    );
    assert_eq!(
        names_of(index.chain("team").collect()),
        ["team", "proj", "root"]
    );
}

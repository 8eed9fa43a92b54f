//! Expected tables are sacctmgr 22.05's output for the same entities (slurmdbd with MariaDB).

use super::*;
use crate::model::assoc::{AcctRequest, AssocSet, ListEdit, QosSet};

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn sample() -> AcctDb {
    let mut db = AcctDb::initial("refcluster");
    db.apply(&AcctRequest::AddQos {
        names: names(&["high"]),
        set: QosSet {
            priority: Some(100),
            preempt: Some(ListEdit::Set(names(&["normal"]))),
            ..Default::default()
        },
    })
    .unwrap();
    db.apply(&AcctRequest::AddAccounts {
        names: names(&["acct1"]),
        parent: None,
        description: Some("d1".into()),
        organization: Some("o1".into()),
        set: AssocSet::default(),
    })
    .unwrap();
    db.apply(&AcctRequest::AddUsers {
        names: names(&["bob"]),
        accounts: names(&["acct1"]),
        partitions: Vec::new(),
        default_account: None,
        admin: None,
        set: AssocSet {
            qos: Some(ListEdit::Set(names(&["normal", "high"]))),
            default_qos: Some(Some("high".into())),
            ..Default::default()
        },
    })
    .unwrap();
    db
}

fn plain() -> Style {
    Style::default()
}

#[test]
fn qos_with_chosen_columns() {
    let db = sample();
    let chosen =
        chosen_columns(Entity::Qos, false, &names(&["Name", "Priority", "Preempt"])).unwrap();
    assert_eq!(
        qos_table(&db, &[], &chosen, plain()),
        "      Name   Priority    Preempt \n\
         ---------- ---------- ---------- \n\
         \x20   normal          0            \n\
         \x20     high        100     normal \n"
    );
    assert_eq!(
        chosen_columns(Entity::Qos, false, &names(&["maxtrespj"])),
        Err(UnknownField("maxtrespj".into()))
    );
    assert_eq!(
        chosen_columns(Entity::Qos, false, &names(&["bogus"])),
        Err(UnknownField("bogus".into()))
    );
}

#[test]
fn qos_default_columns_parsable() {
    let db = sample();
    let style = Style {
        layout: Layout::Parsable2,
        noheader: false,
    };
    assert_eq!(
        qos_table(&db, &names(&["normal"]), &default_columns(Entity::Qos, false), style),
        "Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode|Flags|UsageThres|UsageFactor|GrpTRES|\
         GrpTRESMins|GrpTRESRunMins|GrpJobs|GrpSubmit|GrpWall|MaxTRES|MaxTRESPerNode|MaxTRESMins|MaxWall|\
         MaxTRESPU|MaxJobsPU|MaxSubmitPU|MaxTRESPA|MaxJobsPA|MaxSubmitPA|MinTRES\n\
         normal|0|00:00:00|||cluster|||1.000000|||||||||||||||||\n"
    );
}

#[test]
fn associations_users_and_accounts() {
    let db = sample();
    let chosen = chosen_columns(
        Entity::Association,
        false,
        &names(&[
            "cluster",
            "account",
            "user",
            "qos",
            "defaultqos",
            "fairshare",
        ]),
    )
    .unwrap();
    assert_eq!(
        assoc_table(&db, &AssocFilter::default(), &chosen, plain()),
        "   Cluster    Account       User                  QOS   Def QOS     Share \n\
         ---------- ---------- ---------- -------------------- --------- --------- \n\
         refcluster       root                          normal                   1 \n\
         refcluster       root       root               normal                   1 \n\
         refcluster      acct1                          normal                   1 \n\
         refcluster      acct1        bob          high,normal      high         1 \n"
    );
    assert_eq!(
        user_table(&db, &[], &default_columns(Entity::User, false), plain()),
        "      User   Def Acct     Admin \n\
         ---------- ---------- --------- \n\
         \x20      bob      acct1      None \n\
         \x20     root       root Administ+ \n"
    );
    assert_eq!(
        account_table(&db, &[], &default_columns(Entity::Account, false), plain()),
        "   Account                Descr                  Org \n\
         ---------- -------------------- -------------------- \n\
         \x20    acct1                   d1                   o1 \n\
         \x20     root default root account                 root \n"
    );
    // withassoc: one row per association of each user (rows of the users' own columns and the associations').
    let with = Style {
        layout: Layout::Parsable2,
        noheader: true,
    };
    let users = user_table(&db, &[], &default_columns(Entity::User, true), with);
    assert_eq!(users.lines().count(), 2, "{users}");
    assert!(
        users.lines().any(|l| l.starts_with("bob|acct1|None|")),
        "{users}"
    );
    let accounts = account_table(&db, &[], &default_columns(Entity::Account, true), with);
    // root has two associations (the account's and user root's), acct1 two (the account's and bob's).
    assert_eq!(accounts.lines().count(), 4, "{accounts}");
    let style = Style {
        layout: Layout::Parsable2,
        noheader: true,
    };
    let address = ControlAddress {
        host: "127.0.0.1".into(),
        port: 7840,
    };
    assert_eq!(
        cluster_table(
            &db,
            &address,
            &default_columns(Entity::Cluster, false),
            style
        ),
        "refcluster|127.0.0.1|7840|9728|1||||||||normal|\n"
    );
}

use super::*;
use crate::model::assoc::{AcctDb, AcctRequest, AdminLevel, AssocSet, ListEdit, QosSet};

/// The hierarchy of case 521, built with the same requests sacctmgr sends; its dump is what real Slurm wrote.
fn hierarchy() -> AcctDb {
    let mut db = AcctDb::initial("refcluster");
    let ok = |db: &mut AcctDb, r: AcctRequest| db.apply(&r).map(|_| ()).expect("applies");
    ok(
        &mut db,
        AcctRequest::AddQos {
            names: vec!["hiq".into()],
            set: QosSet::default(),
        },
    );
    let account = |name: &str, parent: Option<&str>, set: AssocSet| AcctRequest::AddAccounts {
        names: vec![name.into()],
        parent: parent.map(str::to_string),
        description: None,
        organization: None,
        set,
    };
    ok(&mut db, account("chem", None, AssocSet::default()));
    ok(
        &mut db,
        AcctRequest::AddAccounts {
            names: vec!["phys".into()],
            parent: None,
            description: Some("physics dept".into()),
            organization: Some("science".into()),
            set: AssocSet {
                shares: Some(50),
                grp_tres: Some(Some("cpu=8,mem=4G".into())),
                max_jobs: Some(Some(10)),
                ..AssocSet::default()
            },
        },
    );
    ok(
        &mut db,
        account(
            "theory",
            Some("phys"),
            AssocSet {
                shares: Some(5),
                max_wall_min: Some(Some(60)),
                qos: Some(ListEdit::Set(vec!["normal".into(), "hiq".into()])),
                default_qos: Some(Some("hiq".into())),
                ..AssocSet::default()
            },
        ),
    );
    ok(
        &mut db,
        AcctRequest::add_user(
            "alice",
            "phys",
            AssocSet {
                shares: Some(3),
                max_jobs: Some(Some(2)),
                ..AssocSet::default()
            },
        ),
    );
    ok(
        &mut db,
        AcctRequest::add_user("alice", "theory", AssocSet::default()),
    );
    ok(
        &mut db,
        AcctRequest::AddUsers {
            names: vec!["bob".into()],
            accounts: vec!["theory".into()],
            partitions: vec![],
            default_account: Some("theory".into()),
            admin: Some(AdminLevel::Operator),
            set: AssocSet {
                max_submit: Some(Some(7)),
                grp_jobs: Some(Some(3)),
                max_tres: Some(Some("cpu=2".into())),
                ..AssocSet::default()
            },
        },
    );
    ok(
        &mut db,
        AcctRequest::AddUsers {
            names: vec!["carol".into()],
            accounts: vec!["chem".into()],
            partitions: vec!["debug".into()],
            default_account: None,
            admin: None,
            set: AssocSet::default(),
        },
    );
    db
}

#[test]
fn dump_lines_are_what_slurm_wrote_for_the_same_hierarchy() {
    // Captured from Slurm 22.05's sacctmgr dump (slurmdbd) after the same sacctmgr commands.
    let expected = "Cluster - 'refcluster':Fairshare=1:QOS='normal'
Parent - 'root'
User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1
Account - 'chem':Description='chem':Organization='chem':Fairshare=1
Account - 'phys':Description='physics dept':Organization='science':Fairshare=50:GrpTRES=cpu=8,mem=4G:MaxJobs=10
Parent - 'chem'
User - 'carol':Partition='debug':DefaultAccount='chem':Fairshare=1
Parent - 'phys'
User - 'alice':DefaultAccount='phys':Fairshare=3:MaxJobs=2
Account - 'theory':Description='theory':Organization='phys':DefaultQOS='hiq':Fairshare=5:MaxWallDurationPerJob=60:QOS='hiq,normal'
Parent - 'theory'
User - 'alice':DefaultAccount='phys':Fairshare=1
User - 'bob':DefaultAccount='theory':AdminLevel='Operator':Fairshare=1:GrpJobs=3:MaxTRESPerJob=cpu=2:MaxSubmitJobs=7";
    let got = dump_lines(&hierarchy(), "refcluster").join("\n");
    assert_eq!(got, expected);
}

#[test]
fn logical_lines_resolve_comments_continuations_and_escapes() {
    let text = "# comment\nAccount - 'a':\\\n  Fairshare=2 # trailing\n\nUser - 'b\\#c'\n";
    let lines = logical_lines(text);
    assert_eq!(
        lines[0],
        FileLine {
            number: 1,
            text: String::new()
        }
    );
    assert_eq!(lines[1].number, 3);
    assert_eq!(lines[1].text, "Account - 'a':  Fairshare=2 ");
    assert_eq!(lines[2].text, "\n");
    assert_eq!(
        lines[3],
        FileLine {
            number: 5,
            text: "User - 'b#c'\n".into()
        }
    );
}

#[test]
fn objects_and_options_split_as_sacctmgr_splits_them() {
    assert_eq!(split_object("Account x5\n"), Split::Skip);
    assert_eq!(
        split_object("Account -\n"),
        Split::NothingAfter("Account".into())
    );
    let Split::Object { object, options } = split_object("User - 'Bob':Description='A:B c'\n")
    else {
        panic!("an object");
    };
    assert_eq!(object, "User");
    let opts = split_options(options).expect("options");
    assert_eq!(opts[0].key, None);
    assert_eq!(opts[0].value, "bob");
    assert_eq!(opts[1].key.as_deref(), Some("Description"));
    assert_eq!(opts[1].value, "a:b c");
    assert!(matches!(
        split_options("'a':Description='open"),
        Err(OptError::Fatal(_))
    ));
    assert!(key_is("MaxWall", "MaxWallDurationPerJob", 4));
    assert!(!key_is("Max", "MaxWallDurationPerJob", 4));
    assert!(!key_is("MaxWallX", "MaxWall", 4));
}
